#!/bin/sh
# End-to-end: the copy-paste CI workflows of docs/ci.md (issue 18.3, 18.4).
# Both YAML files are taken out of the page, linted with libyaml
# (tests/helpers/ciyaml), and their shell steps run here, in order, as the
# CI would run them: GitHub Actions' run: steps with bash -eo pipefail and
# its if: conditions, GitLab's before_script + script in one shell. What
# only a CI provides is stood in for: the `uses:` actions (checkout is a
# fresh clone, the cache is a folder kept between jobs, artifacts are
# checked to exist, the JUnit report is validated against our schema),
# sudo/apt-get (every package named must exist in this machine's apt
# index), uv/pipx and `bench` (tests/helpers/fake-bench.sh); the planning
# model is our loopback server. skillc itself is cloned from a git copy of
# this tree, configured, built and installed by the workflow's own steps.
#
# Job 1 (GitHub, empty cache) pays for every trial and the LLM call, saves
# the cache, and fails at the gate (5/5 vs 5/5 is no gain). Job 2 (GitLab,
# a fresh checkout elsewhere, the cache restored, LLM_CACHE=only, a
# non-inferiority gate) sends no LLM request, runs no trial, and passes.
. "$(dirname "$0")/../lib.sh"

CIY=$T_ROOT/build/tests/helpers/ciyaml
XSD=$T_ROOT/tests/fixtures/junit/junit.xsd
[ -x "$CIY" ] || { echo "FAIL ci.sh: build/tests/helpers/ciyaml is missing (make check builds it)"; exit 1; }
for c in git bash xmllint apt-cache; do
	command -v $c >/dev/null 2>&1 || { t_skip "ci.sh" "$c is not installed"; exit 0; }
done
unset ROUTES ENV_FILE BENCH CACHE_DIR RESULTS LLM_CACHE MODEL EXTERNAL_MODEL STATIC_MODE RUNNER REPEAT \
	GATE_STAGE GATE_RULE GATE_MIN_DELTA GATE_MAX_REGRESSED GATE_VS SKILLC_BIN SKILLC_DATA
# the workflows build skillc from source twice: -O0 halves the compiler's CPU time (configure
# reads CFLAGS from the environment, as on any CI); what is checked is the steps, not the code
export CFLAGS=-O0
C=$T_TMP/ci
mkdir -p "$C/bin" "$C/home" "$C/store"
CI_DOC=$T_ROOT/docs/ci.md
GH=$C/github.yml
GL=$C/gitlab.yml
workflow() { # marker: the yaml block after <!-- workflow: marker --> in docs/ci.md
	awk -v m="<!-- workflow: $1 -->" '$0 == m { on = 1; next }
		on && /^```yaml$/ { inb = 1; next } inb && /^```$/ { exit } inb { print }' "$CI_DOC"
}
workflow github >"$GH"
workflow gitlab >"$GL"

t_begin "both workflows in docs/ci.md lint clean with libyaml, with the structure each CI reads"
t_check "github lint" "$CIY" lint "$GH"
t_check "gitlab lint" "$CIY" lint "$GL"
t_check "github has steps" "$CIY" len "$GH" jobs.skills.steps
t_check "gitlab has a script" "$CIY" len "$GL" skillc.script
t_eq "github trigger" "$("$CIY" get "$GH" on.pull_request.paths.0)" "tasks/**"
t_eq "gitlab junit report" "$("$CIY" get "$GL" skillc.artifacts.reports.junit)" "results/compile-pipeline/junit.xml"
# the lint can fail: a duplicated key, an alias, a tab
sed 's/^  skills:$/  skills:\n    runs-on: x/' "$GH" >"$C/dup.yml"
"$CIY" lint "$C/dup.yml" >"$C/lint.out" 2>&1
t_eq "a duplicate key is refused" $? 1
t_contains "where" "$(cat "$C/lint.out")" "duplicate key 'runs-on'"
printf 'a: &x 1\nb: *x\n' >"$C/alias.yml"
"$CIY" lint "$C/alias.yml" >/dev/null 2>&1
t_eq "an alias is refused" $? 1
t_end

# Plain pass only (docs/testing.md): what the two jobs add is the workflows themselves (bash,
# git, the YAML); the C paths they drive (make final, the trial store, LLM_CACHE=only, the
# gate and junit, make install) run sanitized in pipeline.sh, payonce.sh, llm.sh, gate.sh and
# install.sh, without building skillc from source twice more under the sanitizers
GH_NAME="GitHub job, empty cache: builds skillc, runs the changed task only, saves the cache, fails at the gate"
GL_NAME="GitLab job, fresh checkout, cache restored, LLM_CACHE=only: no LLM request, no trial"
t_plain_only "pipeline.sh, payonce.sh, llm.sh, gate.sh and install.sh run its C paths sanitized" \
	"$GH_NAME" "$GL_NAME" && exit 0

# --- what the CI provides --------------------------------------------------
# skillc's source, as a git repository the workflow clones
SRC=$C/skillc-src
mkdir -p "$SRC"
tar -C "$T_ROOT" --exclude=./build --exclude=./bin --exclude=./results --exclude=./mk/config.mk \
	--exclude=./.git --exclude=./local.mk --exclude=./.env -cf - . | tar -C "$SRC" -xf -
git -C "$SRC" init -q -b main && git -C "$SRC" add -A &&
	git -C "$SRC" -c user.name=t -c user.email=t@example.com commit -qm skillc || exit 2
# the compiler's model: STATIC_MODE=hybrid asks it once per compile, the fast stage once
# per map unit, the deep stage once per section batch; it proposes nothing
t_fakellm "$C/llm" '{"chat": [{"json": {"operations": [], "findings": [], "patches": [], "scores": []}}]}'
requests() { if [ -f "$C/llm/log.jsonl" ]; then wc -l <"$C/llm/log.jsonl" | tr -d ' '; else echo 0; fi; }
# the user's repository: two tasks and routes; the pull request edits one skill
U=$C/origin
mkdir -p "$U" && cp -R "$T_ROOT/tasks" "$U/tasks"
cat >"$U/provider_routes.json" <<EOF
{"providers": {"fake": {"base_url": "$FAKELLM_URL", "key_env": null, "timeout": 10, "connect_timeout": 2,
  "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF
g() { git -C "$U" -c user.name=t -c user.email=t@example.com "$@"; }
g init -q -b main && g add -A && g commit -qm base || exit 2
BASE=$(g rev-parse HEAD)
printf '\nCheck the error count twice before you write the report.\n' \
	>>"$U/tasks/log-error-report/environment/skills/log-triage/SKILL.md"
g commit -qam "the pull request: a sharper log-triage skill" || exit 2
# stand-ins for what needs the network or root
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" "$C/bin/bench"
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" "$C/bin/docker"
cat >"$C/bin/sudo" <<'EOF'
#!/bin/sh
exec "$@"
EOF
cat >"$C/bin/apt-get" <<'EOF'
#!/bin/sh
# stand-in: "install" checks every package named exists in the apt index
echo "apt-get $*" >>"$CI_TOOL_LOG"
[ "$1" = install ] || exit 0
shift
for p in "$@"; do
	case $p in -*) continue ;; esac
	apt-cache show --no-all-versions "$p" >/dev/null 2>&1 || { echo "E: Unable to locate package $p" >&2; exit 100; }
done
EOF
for t in uv pipx; do printf '#!/bin/sh\necho "%s $*" >>"$CI_TOOL_LOG"\n' $t >"$C/bin/$t"; done
chmod +x "$C/bin/sudo" "$C/bin/apt-get" "$C/bin/uv" "$C/bin/pipx"
export CI_TOOL_LOG=$C/tools.log FAKE_BENCH_LOG=$C/bench.log FAKE_BENCH_SCRIPT=$C/script
echo "pass sleep=0" >"$C/script"
trials() { if [ -f "$C/bench.log" ]; then grep -c '^start ' "$C/bench.log"; else echo 0; fi; }
JOBPATH=$C/bin:/usr/local/bin:/usr/bin:/bin
# a CI job starts with no make of its own around it
unset MAKEFLAGS MFLAGS MAKELEVEL MAKE_TERMOUT MAKE_TERMERR
# the gate judges the final evaluation against raw (GATE_STAGE's default)
GSTAGE=final
# make report is wt-report's; until skillc.mk has it, the steps run without it
if grep -q '^report:' "$T_ROOT/mk/skillc.mk"; then HAVE_REPORT=1; else HAVE_REPORT=; fi
noreport() { if [ -n "$HAVE_REPORT" ]; then cat; else sed 's/ summary report junit/ summary junit/'; fi; }

# --- GitHub Actions --------------------------------------------------------
# ${{ }} of the workflow: the few it uses, each given here; any other is an error
gh_expr() {
	v=$1
	while :; do
		case $v in *'${{'*'}}'*) ;; *) break ;; esac
		e=${v#*'${{'}
		e=${e%%'}}'*}
		name=$(echo "$e" | tr -d ' ')
		case $name in
		vars.SKILLC_GIT) r=file://$SRC ;;
		vars.SKILLC_REF) r= ;;
		vars.SKILLC_MODEL) r=vllm/Qwen/Qwen3.5-27B ;;
		vars.SKILLC_EXTERNAL_MODEL) r=fake/planner ;;
		secrets.OPENAI_API_KEY) r= ;;
		github.workspace) r=$GITHUB_WORKSPACE ;;
		github.event.pull_request.base.sha) r=$BASE ;;
		*) echo "unknown expression \${{$e}}" >&2; return 1 ;;
		esac
		v=${v%%'${{'*}$r${v#*'}}'}
	done
	printf '%s' "$v"
}

# runs job jobs.skills of the workflow in folder $1; prints one line per step
gh_job() (
	J=$1
	mkdir -p "$J/tmp"
	git clone -q "$U" "$J/workspace" || exit 2
	export GITHUB_WORKSPACE=$J/workspace RUNNER_TEMP=$J/tmp GITHUB_ENV=$J/github_env HOME=$C/home PATH=$JOBPATH
	: >"$GITHUB_ENV"
	for k in $("$CIY" keys "$GH" jobs.skills.env); do
		v=$(gh_expr "$("$CIY" get "$GH" jobs.skills.env.$k)") || exit 2
		export "$k=$v"
	done
	export GATE_STAGE=$GSTAGE
	# every trial passes, so final ties raw: the gain rule (a gain required) fails
	# the gate, where the default no-regression rule would pass a tie
	export GATE_RULE=gain
	cd "$GITHUB_WORKSPACE" || exit 2
	failed=
	n=$("$CIY" len "$GH" jobs.skills.steps)
	i=0
	while [ $i -lt "$n" ]; do
		s=jobs.skills.steps.$i
		cond=$("$CIY" get "$GH" $s.if 2>/dev/null)
		case $cond in
		'') go=; [ -z "$failed" ] && go=yes ;;
		'always()') go=yes ;;
		"env.TASKS != ''") go=; [ -z "$failed" ] && [ -n "${TASKS:-}" ] && go=yes ;;
		"always() && env.TASKS != ''") go=; [ -n "${TASKS:-}" ] && go=yes ;;
		*) echo "step $i: unknown condition '$cond'"; exit 2 ;;
		esac
		if [ -z "$go" ]; then echo "step $i skipped"; i=$((i + 1)); continue; fi
		uses=$("$CIY" get "$GH" $s.uses 2>/dev/null)
		rc=0
		case $uses in
		'')
			"$CIY" get "$GH" $s.run | noreport >"$J/step$i.sh"
			bash --noprofile --norc -eo pipefail "$J/step$i.sh" >"$J/step$i.log" 2>&1 || rc=$?
			while IFS= read -r l; do [ -n "$l" ] && export "$l"; done <"$GITHUB_ENV" ;;
		actions/checkout@v4 | astral-sh/setup-uv@v5) ;;
		actions/cache/restore@v4)
			p=$("$CIY" get "$GH" $s.with.path)
			[ -d "$C/store/$p" ] && mkdir -p "$(dirname "$p")" && cp -R "$C/store/$p" "$p" ;;
		actions/cache/save@v4)
			p=$("$CIY" get "$GH" $s.with.path)
			rm -rf "$C/store/$p" && mkdir -p "$(dirname "$C/store/$p")" && cp -R "$p" "$C/store/$p" || rc=1 ;;
		actions/upload-artifact@v4)
			"$CIY" get "$GH" $s.with.path | while read -r p; do
				[ -n "$p" ] || continue
				case $p in *report.html) [ -n "$HAVE_REPORT" ] || continue ;; esac
				bash -O globstar -O nullglob -c 'set -- $1; [ $# -gt 0 ]' _ "$p" || echo "missing artifact $p"
			done >"$J/step$i.log"
			[ -s "$J/step$i.log" ] && rc=1 ;;
		mikepenz/action-junit-report@v5)
			xmllint --noout --schema "$XSD" "$("$CIY" get "$GH" $s.with.report_paths)" >"$J/step$i.log" 2>&1 || rc=1 ;;
		*) echo "step $i: unknown action $uses"; exit 2 ;;
		esac
		echo "step $i rc=$rc"
		[ $rc -eq 0 ] || failed=yes
		i=$((i + 1))
	done
)

t_begin "$GH_NAME"
gh_job "$C/job1" >"$C/job1.steps" 2>&1
t_eq "job" $? 0
steps=$(cat "$C/job1.steps")
gate_i=$(i=0; while n=$("$CIY" get "$GH" jobs.skills.steps.$i.name 2>/dev/null || echo -); do
	[ "$n" = Gate ] && { echo $i; break; }; i=$((i + 1)); [ $i -lt 50 ] || break; done)
t_eq "every step ran; only the gate failed" "$(grep -c 'rc=0$' "$C/job1.steps") $(grep -v 'rc=0$' "$C/job1.steps" | tr '\n' ' ')" \
	"$(($("$CIY" len "$GH" jobs.skills.steps) - 1)) step $gate_i rc=1 "
t_contains "why" "$(cat "$C/job1/step$gate_i.log")" "FAIL log-error-report (opencode, vllm/Qwen/Qwen3.5-27B, benchflow, bench workspace): $GSTAGE 5/5"
t_contains "make exit 1" "$(cat "$C/job1/step$gate_i.log")" "gate: FAIL"
t_contains "packages checked" "$(cat "$C/tools.log")" "apt-get install -y --no-install-recommends gcc make pkgconf git libcjson-dev"
t_contains "benchflow" "$(cat "$C/tools.log")" "uv tool install --python 3.12 benchflow"
t_check "skillc installed by the workflow" test -x "$C/job1/workspace/.skillc/bin/skillc-gate"
R=$C/job1/workspace/results/compile-pipeline
t_check "the changed task ran" test -d $R/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B/traces
t_check "the unchanged one did not" test ! -e $R/csv-column-sum--opencode--vllm_Qwen_Qwen3.5-27B
# raw 5, static max(5, FAST_MIN_TRACES=6), final 5 fresh; fast's are static's from the
# store (the stand-in model proposes no patch, so S_fast is S_static) and deep edits nothing
t_eq "trials paid" "$(trials)" 16
# the plan, 3 map units, the deep score of round 1 in two batches (SECTIONS_BATCH=8
# units each; rounds 2 and 3 ask the same: cached)
t_eq "LLM requests" "$(requests)" 6
t_check "junit valid" xmllint --noout --schema "$XSD" $R/junit.xml
t_check "summary" test -f $R/summary.md
t_check "cache saved: trials" test -d "$C/store/results/.cache/trials"
t_check "cache saved: llm" test -d "$C/store/results/.cache/llm"
t_end
[ -n "$HAVE_REPORT" ] || t_skip "ci: report.html uploaded" "make report has not landed in mk/skillc.mk yet; the steps ran without it"

# --- GitLab CI ---------------------------------------------------------------
# runs job skillc in folder $1: before_script + script in one shell, the
# cache restored before and saved after (when: always); paths outside the
# checkout (/opt/skillc, /tmp/skillc) move under the job folder
gl_job() (
	J=$1
	mkdir -p "$J"
	git clone -q "$U" "$J/workspace" || exit 2
	export HOME=$C/home PATH=$JOBPATH CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE SKILLC_GIT=file://$SRC \
		SKILLC_MODEL=vllm/Qwen/Qwen3.5-27B SKILLC_EXTERNAL_MODEL=fake/planner GATE_STAGE=$GSTAGE
	for k in $("$CIY" keys "$GL" skillc.variables); do
		v=$("$CIY" get "$GL" skillc.variables.$k | sed "s|/opt/skillc|$J/opt/skillc|g")
		case $v in '$'*) v=$(printenv "${v#\$}") ;; esac
		export "$k=$v"
	done
	cd "$J/workspace" || exit 2
	cp=$("$CIY" get "$GL" skillc.cache.paths.0)
	[ -d "$C/store/$cp" ] && mkdir -p "$cp" && cp -R "$C/store/$cp/." "$cp"
	: >"$J/job.sh"
	for part in before_script script; do
		n=$("$CIY" len "$GL" skillc.$part)
		i=0
		while [ $i -lt "$n" ]; do
			"$CIY" get "$GL" skillc.$part.$i |
				sed -e "s|/tmp/skillc|@TMP@|g" -e "s|/opt/skillc|$J/opt/skillc|g" -e "s|@TMP@|$J/tmp/skillc|g" |
				noreport >>"$J/job.sh"
			i=$((i + 1))
		done
	done
	rc=0
	bash --noprofile --norc -eo pipefail "$J/job.sh" >"$J/job.log" 2>&1 || rc=$?
	[ "$("$CIY" get "$GL" skillc.cache.when)" = always ] && rm -rf "$C/store/$cp" &&
		mkdir -p "$C/store/$cp" && cp -R "$cp/." "$C/store/$cp"
	i=0
	while p=$("$CIY" get "$GL" skillc.artifacts.paths.$i 2>/dev/null); do
		case $p in *report.html) [ -n "$HAVE_REPORT" ] || { i=$((i + 1)); continue; } ;; esac
		bash -O globstar -O nullglob -c 'set -- $1; [ $# -gt 0 ]' _ "$p" || echo "missing artifact $p"
		i=$((i + 1))
	done
	xmllint --noout --schema "$XSD" "$("$CIY" get "$GL" skillc.artifacts.reports.junit)" >/dev/null 2>&1 ||
		echo "junit invalid"
	echo "job rc=$rc"
)

t_begin "$GL_NAME"
before_trials=$(trials) before_requests=$(requests)
(export LLM_CACHE=only GATE_MIN_DELTA=-100; gl_job "$C/job2") >"$C/job2.out" 2>&1
t_eq "job" "$(cat "$C/job2.out")" "job rc=0"
t_eq "no trial ran" "$(trials)" "$before_trials"
t_eq "no LLM request" "$(requests)" "$before_requests"
R=$C/job2/workspace/results/compile-pipeline
L=$(cat "$C/job2/job.log")
t_contains "changed tasks" "$L" "changed tasks: log-error-report"
t_contains "reused" "$L" "reused from the trial store"
t_contains "gate passes with a non-inferiority rule" "$L" "gate: PASS: 1 run, 1 pass"
t_eq "every trial reused" "$(cat $R/log-error-report--*/traces/log-error-report/*/test-*/trial.json | grep -c '"reused": true')" 21
t_check "junit valid" xmllint --noout --schema "$XSD" $R/junit.xml
t_end

