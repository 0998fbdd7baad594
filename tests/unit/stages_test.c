/* A stage's command line is data in its row (stage_def.args): a toy row,
 * written here and nowhere else, gets its command with no other code. */
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

static char *command_of(const char *const *settings, size_t n)
{
	struct run r = { .dir = "/runs/R", .task = "tsk", .task_dir = "/tasks/tsk",
	                 .rules_dir = "/rules" };
	struct err e = { 0 };
	CHECK_INT(settings_from_args((int)n, (char **)settings, &r.values, &e), 0);
	struct stage_ref ref = { .def = &toy, .index = 7, .count = 9, .round = 2 };
	struct strlist argv = STRLIST_INIT;
	stage_command(&ref, &r, "/bin", &argv);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < argv.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", argv.v[i]);
	strlist_free(&argv);
	cJSON_Delete(r.values);
	return buf_detach(&b);
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

static void test_every_row_has_one_command(void)
{
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		CHECK(!s->args[0] != !s->command);
	}
}

int main(void)
{
	RUN(test_toy_row_needs_no_code);
	RUN(test_every_row_has_one_command);
	T_EXIT();
}
