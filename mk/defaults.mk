# defaults.mk — every setting and its default. Override on the command line
# (make MODEL=vllm/Qwen/Qwen3.5-27B ...), in the environment, or in a
# local.mk beside the Makefile (never committed). Command line wins, then
# local.mk, then the environment, then these.

TASKS_DIR ?= tasks
RESULTS ?= results/compile-pipeline
RUN_DIR ?=
CACHE_DIR ?= results/.cache
HARNESS ?= opencode
MODEL ?=
EXTERNAL_MODEL ?=
RUNNER ?= local
# where RUNNER=local trials run: bwrap, docker (the task's own image) or none
SANDBOX ?= bwrap
REPEAT ?= 3
FAST_MIN_TRACES ?= 6
DEEP_ROUNDS ?= 3
STATIC_MODE ?= deterministic
REQUIRE_SKILL ?= 0
AGENT_TIMEOUT ?= 0
RM_API_URL ?=
MAX_FILE_MB ?= 25
# your own model profiles (*.json), tried before the built-in rules/profiles
PROFILES_DIR ?= profiles
STAGE_TIMEOUT ?= 3600
TRIAL_TIMEOUT ?= 10800
ROUTES ?= provider_routes.json
ENV_FILE ?= .env
LLM_CACHE ?= use
DOCTOR_PROBE ?= models

# Every setting above, in the order `make help` lists them.
SKILLC_SETTINGS := TASKS_DIR RESULTS RUN_DIR CACHE_DIR HARNESS MODEL EXTERNAL_MODEL RUNNER SANDBOX \
	REPEAT FAST_MIN_TRACES DEEP_ROUNDS STATIC_MODE REQUIRE_SKILL AGENT_TIMEOUT RM_API_URL MAX_FILE_MB \
	PROFILES_DIR STAGE_TIMEOUT TRIAL_TIMEOUT ROUTES ENV_FILE LLM_CACHE DOCTOR_PROBE

# Not a setting of the run: how long `make watch` waits (0: until done).
WATCH_TIMEOUT ?= 0
