# defaults.mk — every setting and its default, and every stage. Written by
# make from the settings table (tools/lib/pipeline/settings.c) and the stage
# table (stages.c): do not edit, add a row there.
# Override a setting on the command line (make MODEL=vllm/Qwen/Qwen3.5-27B ...),
# in a local.mk beside the Makefile (never committed), or in the environment.
# Command line wins, then local.mk, then the environment, then these.

# Every setting, in the order `make help` lists them.
SKILLC_SETTINGS := task tasks harnesses models MATRIX TASK_FILTER HARNESS_FILTER MODEL_FILTER skill train test SPLIT SPLIT_SEED TASKS_DIR RESULTS RUN_DIR CACHE_DIR HARNESS MODEL EXTERNAL_MODEL BENCH RUNNER SANDBOX IMAGE QEMU RUNTIME_BASE REGISTRY_MIRROR IMAGE_REGISTRY REPEAT FAST_MIN_TRACES FAST_TOP FAST_BOTTOM FAST_MAX_PATCHES FAST_STAGE DEEP_ROUNDS DEEP_TRIALS DEEP_MAX_TRIALS DEEP_TEST DEEP_ALPHA DEEP_TOLERANCE FINAL_REPEAT FINAL_FRESH STATIC_MODE BASELINE REQUIRE_SKILL AGENT_TIMEOUT AGENT_HANDSHAKE_TIMEOUT RM_API_URL PROFILES_DIR SKILL_SOURCE TRACES PROFILE SKILLS POOL_TASKS MAX_FILE_MB BUDGET_USD STAGE_TIMEOUT TRIAL_TIMEOUT ROUTES ENV_FILE LLM_CACHE DOCTOR_PROBE LAUNCHER SRUN_ARGS DATASET_PIN OUT HARBOR_JOBS STAGE GOAL WATCH_TIMEOUT GATE_STAGE GATE_RULE GATE_MIN_DELTA GATE_MAX_REGRESSED GATE_VS GATE_ACROSS

# Every stage, a make goal each (from the stage table, tools/lib/pipeline/stages.c).
SKILLC_STAGE_GOALS := l1-image l2-image l1-image-pool l2-image-pool ingest raw-eval raw-index raw-eval-pool raw-index-pool noskill-eval noskill-index profile static static-eval static-eval-pool static-index fast-score fast-map fast-reduce fast-apply fast-eval fast-eval-pool fast-index deep-start deep-final final-eval final-index final-eval-pool final-index-pool fast deep

# The settings this command gives (command line, local.mk, environment),
# found before the defaults below: a run keeps its recorded value of the rest.
# A make started by skillc gets the list from the one that started it.
ifeq ($(origin SKILLC_GIVEN),undefined)
SKILLC_GIVEN := $(foreach v,$(SKILLC_SETTINGS),$(if $(filter undefined,$(origin $v)),,$v))
endif

# the task: a folder under TASKS_DIR
task ?=
# several tasks, one run each (instead of task=)
tasks ?=
# several harnesses: every task runs with each (instead of HARNESS=)
harnesses ?=
# several target models: every task runs with each (instead of MODEL=)
models ?=
# a YAML file listing the runs: tasks, harnesses, models (or a Harbor job config's agents and datasets)
MATRIX ?=
# only the tasks whose name holds one of these words
TASK_FILTER ?=
# only these harnesses
HARNESS_FILTER ?=
# only these models
MODEL_FILTER ?=
# a skill run: the skill tuned on the train= tasks and judged on the test= tasks, a skill folder or the name of a skill folder in the train tasks (docs/skill-runs.md)
skill ?=
# a skill run's train tasks: the only tasks whose trials and text the optimizer sees
train ?=
# a skill run's held-out test tasks: raw and final trials only, nothing of them reaches a prompt
test ?=
# a skill run over tasks= instead of train=/test=: the share of the tasks drawn as test tasks (at least one, and one left to train)
SPLIT ?= 0.4
# the seed of that draw; the split and its seed are recorded in the skill run
SPLIT_SEED ?= 1
# folder holding the tasks (point it at a SkillsBench checkout's tasks/)
TASKS_DIR ?= tasks
# folder holding the runs
RESULTS ?= results/compile-pipeline
# this run folder instead of RESULTS/<task>--<harness>--<model> (must be under RESULTS)
RUN_DIR ?=
# content-addressed caches (LLM answers, trials) shared by all runs
CACHE_DIR ?= results/.cache
# agent harness (rules/harness/<name>.json)
HARNESS ?= opencode
# target model, provider/model-id; every stage after ingest needs it
MODEL ?=
# the compiler's planning model, provider/model-id (STATIC_MODE=hybrid)
EXTERNAL_MODEL ?=
# the task source's name in the summary (empty: the TASKS_DIR folder's name)
BENCH ?=
# evaluation runner
RUNNER ?= local
# where RUNNER=local trials run: bwrap (this machine's programs; a Dockerfile's RUN/ENV steps are not reproduced), docker or podman (a container of the task's own image, docs/containers.md) or none (unsandboxed, as root)
SANDBOX ?= bwrap
# SANDBOX=docker|podman: a local image used as the task's L1 instead of building its Dockerfile (empty: build it)
IMAGE ?=
# SANDBOX=docker|podman, an image of another architecture than the host's: auto emulates it where qemu-user-static is registered, yes without checking, no never (docs/containers.md)
QEMU ?= auto
# the Debian 12 image make runtime-image builds the Docker-in-Docker runtime from (docs/containers.md)
RUNTIME_BASE ?= debian:12-slim
# registry mirrors (http(s) URLs, comma-separated) the Docker-in-Docker runtime's daemon pulls base images through; for your own daemon: registry-mirrors in its daemon.json (docs/containers.md)
REGISTRY_MIRROR ?=
# SANDBOX=docker or podman, host:port[/prefix]: make images also pushes each L1/L2 there and pins its digest in the stamp; a node lacking an image pulls it by digest instead of building it (docs/cluster.md)
IMAGE_REGISTRY ?=
# trials per evaluation
REPEAT ?= 3
# counting traces the fast stage needs; static-eval runs at least this many
FAST_MIN_TRACES ?= 6
# traces in the fast stage's top group (docs/fast.md)
FAST_TOP ?= 3
# traces in the fast stage's bottom group
FAST_BOTTOM ?= 3
# patches the fast stage may keep (0: none)
FAST_MAX_PATCHES ?= 4
# 0: the run has no fast stage, deep's round 1 starts from S_static alone (skillc-deep run: deep from given traces)
FAST_STAGE ?= 1
# deep optimization rounds (docs/deep.md)
DEEP_ROUNDS ?= 3
# candidate trials at a deep round's first look (0: REPEAT)
DEEP_TRIALS ?= 0
# candidate trials a deep round may extend to (0: 2 x DEEP_TRIALS)
DEEP_MAX_TRIALS ?= 0
# the deep decision's exact one-sided test on the pass counts
DEEP_TEST ?= barnard
# false-accept rate of the deep decision (exact one-sided test)
DEEP_ALPHA ?= 0.10
# largest median paired ratio of tokens, steps and time a deep edit may cost
DEEP_TOLERANCE ?= 1.10
# fresh trials of S_final in the final evaluation (0: REPEAT)
FINAL_REPEAT ?= 0
# 1: the final evaluation never reuses the selection trials of the last accepted round
FINAL_FRESH ?= 0
# static compile mode (hybrid adds one planning call to EXTERNAL_MODEL; copy keeps the skill unchanged, as the standalone skillc-fast and skillc-deep run do)
STATIC_MODE ?= deterministic
# 1: eval and final also run REPEAT trials with no skill (noskill-eval), the baseline the summary compares every stage against (docs/baseline.md)
BASELINE ?= 0
# 1: a trial that never invoked the skill fails its check
REQUIRE_SKILL ?= 0
# the agent's time limit in a trial, seconds (0: the task's own [agent] timeout_sec)
AGENT_TIMEOUT ?= 0
# RUNNER=local: seconds the agent has to answer the ACP handshake, at most its time limit (0: BenchFlow's 60; raise it where a loaded machine starts the agent slowly)
AGENT_HANDSHAKE_TIMEOUT ?= 0
# AgentRM scoring service for the fast stage; make doctor checks its /health
RM_API_URL ?=
# your model profiles, searched before rules/profiles/
PROFILES_DIR ?= profiles
# evaluate and compile these skills instead of the task's own: a skill folder (SKILL.md) or a skills root holding a set; the run folder is named by its content (docs/baseline.md)
SKILL_SOURCE ?=
# static-eval runs no trial: it imports the traces in this folder (test-NNN/trial.json folders or BenchFlow runs), REPEAT of them, in name order (the standalone skillc-fast and skillc-deep run)
TRACES ?=
# the profile stage copies this profile resolution (skillc-profile's profile.json) instead of resolving MODEL
PROFILE ?=
# compile and optimize (static, fast, deep) only these skill folders of the task's set; the others stay byte-identical, and every trial still sees the whole set (empty: every skill)
SKILLS ?=
# a skill run's other train tasks (set by skillc-skillrun): the run also tries its skill on each (its set under SKILL_SOURCE's parent; its own source stamp and images), Fast reads their traces and instructions and Deep decides over every task by the exact stratified test (docs/skill-runs.md)
POOL_TASKS ?=
# largest file of a task or a skill any tool reads, in MB
MAX_FILE_MB ?= 25
# no stage of the run starts once the run has paid this much, USD (empty: no budget)
BUDGET_USD ?=
# time limit of one stage, seconds; the stage's whole process group is stopped after it
STAGE_TIMEOUT ?= 3600
# hard time limit of one evaluation trial, seconds
TRIAL_TIMEOUT ?= 10800
# provider routes file (the shipped example when absent)
ROUTES ?= provider_routes.json
# file holding API keys
ENV_FILE ?= .env
# LLM cache mode (only: offline replay, a miss is an error)
LLM_CACHE ?= use
# how far make doctor tests a provider (call: one 1-token request)
DOCTOR_PROBE ?= models
# where trials run: here, or each as a Slurm job through srun (docs/cluster.md)
LAUNCHER ?= local
# more srun options for LAUNCHER=srun, e.g. --partition=gpu --mem=8G
SRUN_ARGS ?=
# a dataset pin (make pin writes it): a run refuses to start when its task differs from the pinned one
DATASET_PIN ?=
# make export: the bundle to write, a .tar.gz or .tar.zst file
OUT ?=
# a Harbor jobs folder (or one job, jobs/<job>) whose trials make summary adds to the table
HARBOR_JOBS ?=
# the stage clean-stage forgets (or one trial, raw-eval.003)
STAGE ?=
# the goal make status and make doctor judge: a stage, eval or final
GOAL ?= final
# how long make watch waits, seconds (0: until done)
WATCH_TIMEOUT ?= 0
# the stage make gate judges against raw (docs/ci.md)
GATE_STAGE ?= final
# make gate: no-regression fails a run only on evidence of a loss (the 95% interval of stage - raw below 0); gain passes it only when the interval's lower end is at least GATE_MIN_DELTA (docs/ci.md)
GATE_RULE ?= no-regression
# make gate with GATE_RULE=gain: the lower end of the 95% interval of stage - raw (and - noskill) must be at least this many points; negative: a loss allowed (non-inferiority); -100: off
GATE_MIN_DELTA ?= 0
# make gate: how many runs may have the stage below raw
GATE_MAX_REGRESSED ?= 0
# make gate: noskill also judges stage - noskill
GATE_VS ?= none
# make gate over several runs: runs judges each run; tasks judges the mean change across them, its 95% interval clustered by task (docs/ci.md, docs/statistics.md)
GATE_ACROSS ?= runs

#: Settings (make VAR=value, local.mk or the environment; docs/settings.md):
#:   task=                            the task: a folder under TASKS_DIR
#:   tasks=                           several tasks, one run each (instead of task=)
#:   harnesses=                       several harnesses: every task runs with each (instead of HARNESS=)
#:   models=                          several target models: every task runs with each (instead of MODEL=)
#:   MATRIX=                          a YAML file listing the runs: tasks, harnesses, models (or a Harbor job config's agents and datasets)
#:   TASK_FILTER=                     only the tasks whose name holds one of these words
#:   HARNESS_FILTER=                  only these harnesses
#:   MODEL_FILTER=                    only these models
#:   skill=                           a skill run: the skill tuned on the train= tasks and judged on the test= tasks, a skill folder or the name of a skill folder in the train tasks (docs/skill-runs.md)
#:   train=                           a skill run's train tasks: the only tasks whose trials and text the optimizer sees
#:   test=                            a skill run's held-out test tasks: raw and final trials only, nothing of them reaches a prompt
#:   SPLIT=0.4                        a skill run over tasks= instead of train=/test=: the share of the tasks drawn as test tasks (at least one, and one left to train)
#:   SPLIT_SEED=1                     the seed of that draw; the split and its seed are recorded in the skill run
#:   TASKS_DIR=tasks                  folder holding the tasks (point it at a SkillsBench checkout's tasks/)
#:   RESULTS=results/compile-pipeline folder holding the runs
#:   RUN_DIR=                         this run folder instead of RESULTS/<task>--<harness>--<model> (must be under RESULTS)
#:   CACHE_DIR=results/.cache         content-addressed caches (LLM answers, trials) shared by all runs
#:   HARNESS=opencode                 agent harness (rules/harness/<name>.json)
#:   MODEL=                           target model, provider/model-id; every stage after ingest needs it
#:   EXTERNAL_MODEL=                  the compiler's planning model, provider/model-id (STATIC_MODE=hybrid)
#:   BENCH=                           the task source's name in the summary (empty: the TASKS_DIR folder's name)
#:   RUNNER=local|benchflow|harbor    evaluation runner
#:   SANDBOX=bwrap|docker|podman|none where RUNNER=local trials run: bwrap (this machine's programs; a Dockerfile's RUN/ENV steps are not reproduced), docker or podman (a container of the task's own image, docs/containers.md) or none (unsandboxed, as root)
#:   IMAGE=                           SANDBOX=docker|podman: a local image used as the task's L1 instead of building its Dockerfile (empty: build it)
#:   QEMU=auto|yes|no                 SANDBOX=docker|podman, an image of another architecture than the host's: auto emulates it where qemu-user-static is registered, yes without checking, no never (docs/containers.md)
#:   RUNTIME_BASE=debian:12-slim      the Debian 12 image make runtime-image builds the Docker-in-Docker runtime from (docs/containers.md)
#:   REGISTRY_MIRROR=                 registry mirrors (http(s) URLs, comma-separated) the Docker-in-Docker runtime's daemon pulls base images through; for your own daemon: registry-mirrors in its daemon.json (docs/containers.md)
#:   IMAGE_REGISTRY=                  SANDBOX=docker or podman, host:port[/prefix]: make images also pushes each L1/L2 there and pins its digest in the stamp; a node lacking an image pulls it by digest instead of building it (docs/cluster.md)
#:   REPEAT=3                         trials per evaluation
#:   FAST_MIN_TRACES=6                counting traces the fast stage needs; static-eval runs at least this many
#:   FAST_TOP=3                       traces in the fast stage's top group (docs/fast.md)
#:   FAST_BOTTOM=3                    traces in the fast stage's bottom group
#:   FAST_MAX_PATCHES=4               patches the fast stage may keep (0: none)
#:   FAST_STAGE=1                     0: the run has no fast stage, deep's round 1 starts from S_static alone (skillc-deep run: deep from given traces)
#:   DEEP_ROUNDS=3                    deep optimization rounds (docs/deep.md)
#:   DEEP_TRIALS=0                    candidate trials at a deep round's first look (0: REPEAT)
#:   DEEP_MAX_TRIALS=0                candidate trials a deep round may extend to (0: 2 x DEEP_TRIALS)
#:   DEEP_TEST=barnard|fisher         the deep decision's exact one-sided test on the pass counts
#:   DEEP_ALPHA=0.10                  false-accept rate of the deep decision (exact one-sided test)
#:   DEEP_TOLERANCE=1.10              largest median paired ratio of tokens, steps and time a deep edit may cost
#:   FINAL_REPEAT=0                   fresh trials of S_final in the final evaluation (0: REPEAT)
#:   FINAL_FRESH=0                    1: the final evaluation never reuses the selection trials of the last accepted round
#:   STATIC_MODE=deterministic|hybrid|copy static compile mode (hybrid adds one planning call to EXTERNAL_MODEL; copy keeps the skill unchanged, as the standalone skillc-fast and skillc-deep run do)
#:   BASELINE=0                       1: eval and final also run REPEAT trials with no skill (noskill-eval), the baseline the summary compares every stage against (docs/baseline.md)
#:   REQUIRE_SKILL=0                  1: a trial that never invoked the skill fails its check
#:   AGENT_TIMEOUT=0                  the agent's time limit in a trial, seconds (0: the task's own [agent] timeout_sec)
#:   AGENT_HANDSHAKE_TIMEOUT=0        RUNNER=local: seconds the agent has to answer the ACP handshake, at most its time limit (0: BenchFlow's 60; raise it where a loaded machine starts the agent slowly)
#:   RM_API_URL=                      AgentRM scoring service for the fast stage; make doctor checks its /health
#:   PROFILES_DIR=profiles            your model profiles, searched before rules/profiles/
#:   SKILL_SOURCE=                    evaluate and compile these skills instead of the task's own: a skill folder (SKILL.md) or a skills root holding a set; the run folder is named by its content (docs/baseline.md)
#:   TRACES=                          static-eval runs no trial: it imports the traces in this folder (test-NNN/trial.json folders or BenchFlow runs), REPEAT of them, in name order (the standalone skillc-fast and skillc-deep run)
#:   PROFILE=                         the profile stage copies this profile resolution (skillc-profile's profile.json) instead of resolving MODEL
#:   SKILLS=                          compile and optimize (static, fast, deep) only these skill folders of the task's set; the others stay byte-identical, and every trial still sees the whole set (empty: every skill)
#:   POOL_TASKS=                      a skill run's other train tasks (set by skillc-skillrun): the run also tries its skill on each (its set under SKILL_SOURCE's parent; its own source stamp and images), Fast reads their traces and instructions and Deep decides over every task by the exact stratified test (docs/skill-runs.md)
#:   MAX_FILE_MB=25                   largest file of a task or a skill any tool reads, in MB
#:   BUDGET_USD=                      no stage of the run starts once the run has paid this much, USD (empty: no budget)
#:   STAGE_TIMEOUT=3600               time limit of one stage, seconds; the stage's whole process group is stopped after it
#:   TRIAL_TIMEOUT=10800              hard time limit of one evaluation trial, seconds
#:   ROUTES=provider_routes.json      provider routes file (the shipped example when absent)
#:   ENV_FILE=.env                    file holding API keys
#:   LLM_CACHE=use|refresh|off|only   LLM cache mode (only: offline replay, a miss is an error)
#:   DOCTOR_PROBE=models|call|none    how far make doctor tests a provider (call: one 1-token request)
#:   LAUNCHER=local|srun              where trials run: here, or each as a Slurm job through srun (docs/cluster.md)
#:   SRUN_ARGS=                       more srun options for LAUNCHER=srun, e.g. --partition=gpu --mem=8G
#:   DATASET_PIN=                     a dataset pin (make pin writes it): a run refuses to start when its task differs from the pinned one
#:   OUT=                             make export: the bundle to write, a .tar.gz or .tar.zst file
#:   HARBOR_JOBS=                     a Harbor jobs folder (or one job, jobs/<job>) whose trials make summary adds to the table
#:   STAGE=                           the stage clean-stage forgets (or one trial, raw-eval.003)
#:   GOAL=final                       the goal make status and make doctor judge: a stage, eval or final
#:   WATCH_TIMEOUT=0                  how long make watch waits, seconds (0: until done)
#:   GATE_STAGE=final                 the stage make gate judges against raw (docs/ci.md)
#:   GATE_RULE=no-regression|gain     make gate: no-regression fails a run only on evidence of a loss (the 95% interval of stage - raw below 0); gain passes it only when the interval's lower end is at least GATE_MIN_DELTA (docs/ci.md)
#:   GATE_MIN_DELTA=0                 make gate with GATE_RULE=gain: the lower end of the 95% interval of stage - raw (and - noskill) must be at least this many points; negative: a loss allowed (non-inferiority); -100: off
#:   GATE_MAX_REGRESSED=0             make gate: how many runs may have the stage below raw
#:   GATE_VS=none|noskill             make gate: noskill also judges stage - noskill
#:   GATE_ACROSS=runs|tasks           make gate over several runs: runs judges each run; tasks judges the mean change across them, its 95% interval clustered by task (docs/ci.md, docs/statistics.md)
