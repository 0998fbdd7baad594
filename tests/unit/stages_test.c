/* A stage's command line is data in its row (stage_def.args): a toy row,
 * written here and nowhere else, gets its command with no other code. */
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "pipeline/stages.h"

static const struct stage_def toy = {
	.name = "toy-step",
	.tool = "skillc-toy",
	.args = { "go", "--task %D", "--out @traces/%T/toy/test-%N", "--unit %I", "--round %K",
	          "--prev artifacts/round-%P", "--model $MODEL", "--trials #static_trials",
	          "--profiles ^profiles", "--run %F", "if SKILLS --only $SKILLS",
	          "if SANDBOX=docker|podman --engine $SANDBOX", "if IMAGE --image $IMAGE" },
};

/* A trial's row: values worked out for the target, a second tool after "--". */
static const struct stage_def toy_trial = {
	.name = "toy-trial",
	.tool = "skillc-toy",
	.args = { "run --of #count --deadline #deadline", "if AGENT_TIMEOUT --limit $AGENT_TIMEOUT",
	          "if #image --image #image", "if #env_file --env $ENV_FILE",
	          "if RUNNER=local --sandbox #sandbox", "-- +skillc-other --at @x" },
};

static char *command_in(const struct stage_def *def, const char *dir, const char *const *settings,
                        size_t n)
{
	struct run r = { .dir = (char *)dir, .task = "tsk", .task_dir = "/tasks/tsk",
	                 .rules_dir = "/rules" };
	struct err e = { 0 };
	CHECK_INT(settings_from_args((int)n, (char **)settings, &r.values, &e), 0);
	struct stage_ref ref = { .def = def, .index = 7, .count = 9, .round = 2 };
	struct strlist argv = STRLIST_INIT;
	stage_command(&ref, &r, "/bin", &argv);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < argv.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv.v[i]);
	strlist_free(&argv);
	cJSON_Delete(r.values);
	return buf_detach(&b);
}

static char *command_of(const char *const *settings, size_t n)
{
	return command_in(&toy, "/runs/R", settings, n);
}

static void test_toy_row_needs_no_code(void)
{
	const char *plain[] = { "MODEL=p/m", "REPEAT=2", "FAST_MIN_TRACES=5" };
	char *got = command_of(plain, ARRAY_LEN(plain));
	CHECK_STR(got, "/bin/skillc-toy go --task /tasks/tsk --out /runs/R/traces/tsk/toy/test-007"
	               " --unit 7 --round 2 --prev artifacts/round-1 --model p/m --trials 5"
	               " --profiles /rules/profiles --run /runs/R");
	free(got);
	const char *more[] = { "MODEL=p/m", "SKILLS=a,b", "SANDBOX=podman", "IMAGE=" };
	got = command_of(more, ARRAY_LEN(more));
	CHECK(strstr(got, " --only a,b --engine podman") != NULL);
	CHECK(strstr(got, "--image") == NULL);
	free(got);
}

static void test_toy_trial_row(void)
{
	char *dir = t_tmpdir(), *images = xasprintf("%s/images", dir);
	char *env = xasprintf("%s/.env", dir), *stamp = xasprintf("%s/tsk--opencode.l2.id", images);
	CHECK_INT(mkdir(images, 0755), 0);
	char *env_set = xasprintf("ENV_FILE=%s", env);
	const char *plain[] = { "AGENT_TIMEOUT=0", "TRIAL_TIMEOUT=600", "SANDBOX=bwrap", env_set };
	char *got = command_in(&toy_trial, dir, plain, ARRAY_LEN(plain));
	char *want = xasprintf("/bin/skillc-toy run --of 9 --deadline 570 --sandbox local"
	                       " -- /bin/skillc-other --at %s/x", dir);
	CHECK_STR(got, want); /* 0 is not set; no .env, no stamp: left out */
	free(got);
	free(want);
	FILE *f = fopen(env, "w");
	CHECK(f && fclose(f) == 0);
	f = fopen(stamp, "w");
	CHECK(f && fputs("sha256:1 reg/tsk:l2\n", f) >= 0 && fclose(f) == 0);
	const char *more[] = { "AGENT_TIMEOUT=5", "TRIAL_TIMEOUT=100", "SANDBOX=podman", env_set };
	got = command_in(&toy_trial, dir, more, ARRAY_LEN(more));
	want = xasprintf("/bin/skillc-toy run --of 9 --deadline 100 --limit 5 --image reg/tsk:l2"
	                 " --env %s --sandbox podman -- /bin/skillc-other --at %s/x", env, dir);
	CHECK_STR(got, want);
	free(got);
	free(want);
	const char *other[] = { "RUNNER=harbor", "SANDBOX=docker", "ENV_FILE=/nonexistent/.env" };
	got = command_in(&toy_trial, dir, other, ARRAY_LEN(other));
	CHECK(strstr(got, "--image") == NULL && strstr(got, "--sandbox") == NULL);
	CHECK(strstr(got, "--env") == NULL);
	free(got);
	CHECK_INT(unlink(stamp) | unlink(env) | rmdir(images) | rmdir(dir), 0);
	free(env_set);
	free(stamp);
	free(env);
	free(images);
	free(dir);
}

/* The argv of target name in r, joined by spaces. */
static char *target_command(struct run *r, const char *name)
{
	struct stage_ref ref;
	CHECK_INT(stage_ref_find(r, name, &ref), 0);
	struct strlist argv = STRLIST_INIT;
	stage_command(&ref, r, "/bin", &argv);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < argv.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv.v[i]);
	strlist_free(&argv);
	return buf_detach(&b);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* POOL_TASKS in a container: each pooled task's own images (l1-image-pool,
 * l2-image-pool) and source (inputs/pool/<task>.src.hash); its trials get
 * its own L2's tag, the run's own trials the run's. */
static void test_pooled_task_images_and_source(void)
{
	char *dir = t_tmpdir(), *images = xasprintf("%s/images", dir);
	char *own = xasprintf("%s/tsk--opencode.l2.id", images);
	char *pooled = xasprintf("%s/tb--opencode.l2.id", images);
	CHECK_INT(mkdir(images, 0755), 0);
	put(own, "sha256:1 reg/tsk:l2\n");
	put(pooled, "sha256:2 reg/tb:l2\n");
	struct run r = { .dir = xstrdup(dir), .task = xstrdup("tsk"),
	                 .task_dir = xstrdup("/tasks/tsk"), .rules_dir = xstrdup("/rules") };
	const char *set[] = { "RUNNER=local", "SANDBOX=docker", "POOL_TASKS=tb", "TASKS_DIR=/tasks",
	                      "MODEL=p/m", "REPEAT=1" };
	struct err e = { 0 };
	CHECK_INT(settings_from_args((int)ARRAY_LEN(set), (char **)set, &r.values, &e), 0);
	char *got = target_command(&r, "raw-eval-pool.tb.001");
	CHECK(strstr(got, "--task /tasks/tb ") && strstr(got, " --image reg/tb:l2 "));
	free(got);
	got = target_command(&r, "raw-eval.001");
	CHECK(strstr(got, " --image reg/tsk:l2 ") != NULL);
	free(got);
	got = target_command(&r, "l2-image-pool.tb");
	CHECK(strstr(got, "l2 --task /tasks/tb ") && strstr(got, "/images/tb.l1.id --out "));
	free(got);
	struct stage_ref ref;
	CHECK_INT(stage_ref_find(&r, "raw-eval-pool.tb.001", &ref), 0);
	struct strlist in = STRLIST_INIT;
	stage_ref_inputs(&ref, &r, &in);
	bool src = false, l2 = false;
	for (size_t i = 0; i < in.n; i++) {
		src = src || !strcmp(in.v[i], "inputs/pool/tb.src.hash");
		l2 = l2 || !strcmp(in.v[i], "images/tb--opencode.l2.id");
	}
	CHECK(src && l2);
	strlist_free(&in);
	struct source_at *v;
	size_t n = run_sources(&r, &v), pool = 0;
	for (size_t i = 0; i < n; i++) {
		char *stamp = source_stamp(&r, &v[i]), *path = source_path(&r, &v[i]);
		const char *want = !strcmp(stamp, "inputs/pool/tb.src.hash") ? "/tasks/tb"
		                   : !strcmp(stamp, "inputs/pool/tb.environment.src.hash")
		                           ? "/tasks/tb/environment" : NULL;
		if (want) {
			CHECK_STR(path, want);
			pool++;
		}
		free(stamp);
		free(path);
	}
	CHECK(pool == 2);
	free(v);
	run_free(&r);
	CHECK_INT(unlink(own) | unlink(pooled) | rmdir(images) | rmdir(dir), 0);
	free(pooled);
	free(own);
	free(images);
	free(dir);
}

/* True when target name of r reads want among its inputs. */
static bool reads_input(const struct run *r, const char *name, const char *want)
{
	struct stage_ref ref;
	CHECK_INT(stage_ref_find(r, name, &ref), 0);
	struct strlist in = STRLIST_INIT;
	stage_ref_inputs(&ref, r, &in);
	bool found = false;
	for (size_t i = 0; i < in.n; i++)
		found = found || !strcmp(in.v[i], want);
	strlist_free(&in);
	return found;
}

/* A step reading a pooled task's files runs again when they change: Fast's
 * score and map (its instruction), apply and Deep's edit (the leakage
 * guard's held-out files); the score step is given the task's folder. */
static void test_pooled_task_readers(void)
{
	char *dir = t_tmpdir();
	struct run r = { .dir = xstrdup(dir), .task = xstrdup("tsk"),
	                 .task_dir = xstrdup("/tasks/tsk"), .rules_dir = xstrdup("/rules") };
	const char *set[] = { "POOL_TASKS=tb", "TASKS_DIR=/tasks", "MODEL=p/m", "REPEAT=1",
	                      "EXTERNAL_MODEL=p/c", "DEEP_ROUNDS=1" };
	struct err e = { 0 };
	CHECK_INT(settings_from_args((int)ARRAY_LEN(set), (char **)set, &r.values, &e), 0);
	const char *readers[] = { "fast-score", "fast-map.001", "fast-apply", "deep-1-edit" };
	for (size_t i = 0; i < ARRAY_LEN(readers); i++)
		CHECK(reads_input(&r, readers[i], "inputs/pool/tb.src.hash"));
	CHECK(reads_input(&r, "fast-score", "inputs/task.src.hash"));
	char *got = target_command(&r, "fast-score");
	CHECK(strstr(got, " --pool-task /tasks/tb ") != NULL);
	free(got);
	got = target_command(&r, "deep-1-edit");
	CHECK(strstr(got, " --leak-task /tasks/tb") != NULL);
	free(got);
	run_free(&r);
	CHECK_INT(rmdir(dir), 0);
	free(dir);
}

static void test_every_row_is_a_template(void)
{
	for (size_t i = 0; i < stage_count; i++)
		CHECK(stage_table[i].args[0] != NULL);
}

int main(void)
{
	RUN(test_toy_row_needs_no_code);
	RUN(test_toy_trial_row);
	RUN(test_pooled_task_images_and_source);
	RUN(test_pooled_task_readers);
	RUN(test_every_row_is_a_template);
	T_EXIT();
}
