#!/bin/sh
# End-to-end: the LAUNCHER settings where no cluster is needed to tell (the
# cluster itself is tests/e2e/slurm.sh): bad values stop make at once, a
# missing srun fails the trial with what to do, and the watchdog stops make
# and keeps its marks when it cannot ask Slurm about them.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
SK="$T_SK task=csv-column-sum RUNNER=benchflow MODEL=vllm/m"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_m

t_begin "bad LAUNCHER and SRUN_ARGS stop make before any work"
out=$($SK LAUNCHER=sbatch ingest 2>&1)
t_eq "exit" $? 2
t_contains "launcher" "$out" "bad LAUNCHER 'sbatch'"
out=$($SK 'SRUN_ARGS=-p x;touch pwned' ingest 2>&1)
t_eq "exit" $? 2
t_contains "srun args" "$out" "bad SRUN_ARGS '-p x;touch pwned'"
out=$($SK 'SRUN_ARGS=$(shell touch pwned)' ingest 2>&1)
t_eq "exit" $? 2
t_check "nothing ran" test ! -e pwned -a ! -d "$R"
out=$($SK "SRUN_ARGS=--partition=gpu --gres=gpu:1 -x node[01-03]" ingest 2>&1)
t_eq "good ones pass" $? 0
t_end

t_begin "LAUNCHER=srun without srun: the trial fails saying what to do; ingest runs here"
# the tools by absolute path; nothing else on PATH, so there is no srun
out=$(PATH=$T_BIN:$W/fake /usr/bin/make --no-print-directory -f "$T_ROOT/mk/skillc.mk" task=csv-column-sum \
	RUNNER=benchflow MODEL=vllm/m LAUNCHER=srun raw-eval REPEAT=1 2>&1)
t_eq "exit: the stage's 1" $? 1
t_contains "what to do" "$out" "raw-eval.001: failed after"
t_contains "what to do" "$out" "LAUNCHER=srun needs \`srun\` on PATH"
t_contains "ingest ran here" "$(cat $R/status/ingest.json)" '"state": "done"'
t_check "no job marked" test -z "$(ls $R/.slurm 2>/dev/null)"
t_end

t_begin "a job still marked while Slurm cannot be asked: make stops, says why and what to do, keeps the mark"
mkdir -p $R/.slurm
printf '{"job_name": "x:raw-eval.001", "comment": "skillc:%s"}\n' "$W/$R" >$R/.slurm/raw-eval.001.json
# a squeue whose controller does not answer
printf '#!/bin/sh\necho "squeue: error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n' >fake/squeue
chmod +x fake/squeue
before=$(cat $R/status/raw-eval.001.json)
out=$(PATH=$W/fake:$PATH $SK raw-eval REPEAT=1 2>&1)
t_eq "exit: Slurm could not be asked (1)" $? 1
t_contains "why" "$out" "cannot ask Slurm about 1 job an earlier make of '$R' left (squeue failed"
t_contains "what to do" "$out" "or remove $R/.slurm/ if you know those jobs have ended"
t_check "mark kept" test -f $R/.slurm/raw-eval.001.json
t_eq "no trial started" "$(cat $R/status/raw-eval.001.json)" "$before"
rm -r $R/.slurm
out=$(PATH=$W/fake:$PATH $SK raw-eval REPEAT=1 2>&1)
t_eq "once removed, make works" $? 0
t_end
