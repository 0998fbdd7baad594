#!/bin/sh
# End-to-end: LAUNCHER=srun against a real single-node Slurm cluster that
# the test starts (t_slurm: private munged, slurmctld and slurmd, stopped at
# exit). Every trial runs as a Slurm job of its own, named <run>:<target>,
# which Slurm's job completion log (sacct -c) lists. The trials go through
# the stand-in `bench` (tests/helpers/fake-bench.sh), on PATH in the jobs too.
. "$(dirname "$0")/../lib.sh"

if ! t_slurm "$T_TMP/slurm"; then
	t_skip "trials as Slurm jobs" "$T_SLURM_WHY"
	exit 0
fi
t_bench_work
M=vllm/qwen-27b
RUN=csv-column-sum--opencode--vllm_qwen-27b
SK="$T_SK task=csv-column-sum RUNNER=benchflow MODEL=$M LAUNCHER=srun TRIAL_TIMEOUT=300"

script() { rm -f script.n; printf '%s\n' "$@" >script; }
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
# jobname|state of every job Slurm finished, from its job completion log
finished() { sacct --completion --noheader --parsable2 --format=jobname,state 2>/dev/null; }
# jobs queued or running now: id|name|state
queued() { squeue --noheader --format='%i|%j|%T' 2>/dev/null; }
# ended NAME STATE: Slurm's completion log has the job NAME in STATE. The
# record is written as the job ends, which may be a moment after srun or
# scancel returned: callers poll (t_poll)
ended() { finished | grep -qxF "$1|$2"; }

t_begin "LAUNCHER=srun: each trial is a Slurm job named <run>:<target>, which sacct lists"
script "pass sleep=0.5"
out=$($SK -j3 raw-eval REPEAT=3 2>&1)
t_eq "exit" $? 0
t_eq "bench runs" "$(starts)" 3
R=results/compile-pipeline/$RUN
for n in 001 002 003; do
	t_contains "trial $n passed" "$(cat $R/traces/csv-column-sum/raw/test-$n/trial.json 2>/dev/null)" '"outcome": "passed"'
	t_check "job of trial $n" t_poll 30 ended "$RUN:raw-eval.$n" COMPLETED
	t_contains "trial $n launched by srun" "$(head -1 $R/logs/raw-eval.$n.log)" "srun -N1 -n1 --job-name=$RUN:raw-eval.$n"
done
t_eq "three jobs" "$(finished | grep -c "^$RUN:raw-eval")" 3
t_eq "the ingest ran here, not as a job" "$(finished | grep -c ':ingest')" 0
# the job's limit is the trial's (300 s = 5 min) plus a minute
t_contains "time limit" "$(squeue --noheader --states=all --format='%j %l' | grep "raw-eval.001")" " 6:00"
t_check "no job left marked" test -z "$(ls $R/.slurm 2>/dev/null)"
t_end

t_begin "a second make submits no job"
out=$($SK -j3 raw-eval REPEAT=3 2>&1)
t_eq "exit" $? 0
t_eq "no bench run" "$(starts)" 3
t_eq "still three jobs" "$(finished | grep -c "^$RUN:raw-eval")" 3
t_end

t_begin "a failing trial's error is the tool's own line, not srun's"
script "crash"
out=$($SK raw-eval REPEAT=4 2>&1)
t_eq "exit: the trial errored (1)" $? 1
err=$("$T_ROOT/build/tests/helpers/jget" $R/status/raw-eval.004.json error)
case $err in srun:*|"") t_fail "error is '$err'" ;; esac
t_check "the job failed" t_poll 30 ended "$RUN:raw-eval.004" FAILED
t_end

# jobs of the run that Slurm runs now
running() { queued | grep -c "|$RUN:raw-eval\.[0-9]*|RUNNING\$"; }
# jobs of the run Slurm still lists, in any state: COMPLETING too, which a
# cancelled job is at once while its tool may still be stopping
at_work() { queued | grep "|$RUN:"; }
# two trials' agents are at work: two Slurm jobs running, and in each the
# stand-in bench has written its rollout's config.json (since the case
# began: touch case.start) and hangs
two_agents() {
	[ "$(running)" -eq 2 ] &&
		[ "$(find $R/traces/csv-column-sum/raw -path '*/.test-*' -name config.json -newer case.start | wc -l)" -eq 2 ]
}

# two_at_work [PREFIX...]: make -j2 raw-eval REPEAT=6 in a session of its
# own (sid: make's pid, its group and session), PREFIX before it, its output
# in make.out; returns when two trials' agents are at work
two_at_work() {
	touch case.start
	setsid "$@" $SK -j2 raw-eval REPEAT=6 >make.out 2>&1 &
	sid=$!
	t_poll 60 two_agents || { t_fail "two agents at work"; sed 's/^/make: /' make.out >&2; queued >&2; }
}

t_begin "Ctrl-C: make cancels its jobs, which end as they would here (trials kept aside, why)"
script hang
rm -rf $R/.incomplete
# setsid: make leads its own process group, as at a terminal; Ctrl-C
# there is SIGINT to that group (env undoes the SIG_IGN that sh gives a
# background job)
two_at_work env --default-signal=INT
kill -INT -$sid
wait $sid
t_check "make stopped" test $? -ne 0
t_eq "no job at work" "$(at_work)" ""
t_check "nothing of make left running" t_poll 30 sh -c "! pgrep -s $sid"
t_check "004 cancelled" t_poll 30 ended "$RUN:raw-eval.004" CANCELLED
t_check "005 cancelled" t_poll 30 ended "$RUN:raw-eval.005" CANCELLED
t_contains "the trial was told, and kept aside" "$(cat $R/.incomplete/raw/test-00*/reason.txt 2>/dev/null)" "interrupted by signal 15"
t_end

t_begin "kill (SIGTERM to make's group): the same"
two_at_work
kill -TERM -$sid
wait $sid
left=$(at_work)
t_eq "no job at work" "$left" ""
[ -z "$left" ] || sed 's/^/make: /' make.out >&2
t_check "cancelled" t_poll 30 sh -c "sacct --completion --noheader --parsable2 --format=state | tail -2 | grep -qx CANCELLED"
t_check "nothing of make left running" t_poll 30 sh -c "! pgrep -s $sid"
t_end

t_begin "a trial slow to stop (7 s after SIGTERM): the stopped make waits until its job has ended"
script "hang stop=7"
l0=$(wc -l <bench.log)
two_at_work
kill -TERM -$sid
wait $sid
# the stand-in benches of this case (pid: the third word of their start
# lines); one may end by Slurm's SIGKILL after KillWait, logging nothing
benches=$(tail -n +$((l0 + 1)) bench.log | awk '$1 == "start" { print $3 }')
t_eq "two benches started" "$(echo "$benches" | wc -w)" 2
alive=
for p in $benches; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
t_eq "no bench it started was still at work when make returned" "$alive" ""
[ -z "$alive" ] || { sed 's/^/make: /' make.out; tail -6 bench.log | sed 's/^/bench.log: /'; } >&2
left=$(at_work)
t_eq "no job left, not even completing" "$left" ""
[ -z "$left" ] || sed 's/^/make: /' make.out >&2
t_check "nothing of make left running" t_poll 30 sh -c "! pgrep -s $sid"
script hang
t_end

t_begin "kill -9 of make and everything it started leaves orphaned jobs; the next make cancels them"
two_at_work
orphans=$(queued | grep "|$RUN:raw-eval" | cut -d'|' -f1 | sort | tr '\n' ' ')
targets=$(queued | grep "|$RUN:raw-eval" | sed 's/^[^|]*|[^:]*:\([^|]*\)|.*/\1.json/' | sort | tr '\n' ' ')
# every process at once, as when a login node dies: make, skillc-rules, the
# one make, the stages and both srun processes. Stopped first, so none can
# react to another's death; then killed children first (the highest pids):
# a process whose death orphans a process group with stopped members makes
# the kernel send them SIGHUP and SIGCONT (POSIX), and a parent's death sends
# its child our PR_SET_PDEATHSIG, either of which would wake a stage or an
# srun to cancel its job as a Ctrl-C does
pids=$(pgrep -s $sid)
kill -STOP $pids
kill -KILL $(echo $pids | tr ' ' '\n' | sort -rn) 2>/dev/null
wait $sid 2>/dev/null
t_check "all gone" t_poll 20 sh -c "! pgrep -s $sid"
t_eq "the jobs still run: nothing of make is left to stop them" "$(running)" 2
[ "$(running)" = 2 ] || {
	queued | sed 's/^/squeue: /'
	grep -iE 'kill|cancel|signal' "$T_SLURM"/log/slurmctld.log | tail -8 | sed 's/^/slurmctld: /'
	tail -8 "$T_SLURM"/log/slurmd.log | sed 's/^/slurmd: /'
} >&2
t_eq "marked" "$(ls $R/.slurm | sort | tr '\n' ' ')" "$targets"
script pass
out=$($SK -j2 raw-eval REPEAT=6 2>&1)
t_eq "exit" $? 0
for id in $orphans; do
	t_contains "watchdog" "$out" "cancelled orphaned Slurm job $id of"
	t_check "cancelled in Slurm" t_poll 30 sh -c "sacct --completion --noheader --parsable2 --format=jobid,state | grep -qxF '$id|CANCELLED'"
	t_eq "orphan $id gone before the trials ran again" "$(queued | grep "^$id|")" ""
done
t_eq "no job at work" "$(at_work)" ""
t_contains "the trials ran again" "$(cat $R/traces/csv-column-sum/raw/test-006/trial.json 2>/dev/null)" '"outcome": "passed"'
t_check "no job left marked" test -z "$(ls $R/.slurm 2>/dev/null)"
out=$($SK -j2 raw-eval REPEAT=6 2>&1)
case $out in *orphan*) t_fail "a second make found orphans: $out" ;; esac
t_end

t_begin "make doctor checks the cluster: reachable, partition up"
printf '{"providers": {"vllm": {"base_url": "http://127.0.0.1:9/v1", "key_required": false}}}\n' >routes.json
D="$SK doctor DOCTOR_PROBE=none ROUTES=routes.json EXTERNAL_MODEL=$M"
out=$($D 2>&1)
t_eq "exit" $? 0
t_contains "ok" "$out" "ok      LAUNCHER: srun: partition main (the default) is up, 1 of 1 node usable (idle 1)"
out=$($D SRUN_ARGS=--partition=gpu 2>&1)
t_eq "unknown partition: exit" $? 1
t_contains "unknown partition" "$out" "problem LAUNCHER: srun: SRUN_ARGS names partition 'gpu', which the cluster does not have (partitions: main)"
scontrol update PartitionName=main State=DOWN
out=$($D SRUN_ARGS="-p main" 2>&1)
t_eq "partition down: exit" $? 1
t_contains "partition down" "$out" "problem LAUNCHER: srun: partition main is down"
scontrol update PartitionName=main State=UP
# a controller that is down: the same cluster's config with a port nobody listens on
sed "s/^SlurmctldPort=.*/SlurmctldPort=$(t_free_port)/" "$SLURM_CONF" >"$T_TMP/down.conf"
out=$(SLURM_CONF=$T_TMP/down.conf $D 2>&1)
t_eq "no cluster: exit" $? 1
t_contains "no cluster" "$out" "problem LAUNCHER: srun: the cluster does not answer"
out=$($D LAUNCHER=local 2>&1)
t_contains "local" "$out" "ok      LAUNCHER: local: stages run on this machine"
t_end
