/* skillc-check — judges Agent Skills against the spec as the reference
 * validator (skills-ref) does, and lints them on top. See docs/check.md. */
#include <stdio.h>
#include <string.h>

#include "skill/validate.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"

static const char usage[] =
	"usage: skillc-check [--json] [--no-lint] SKILL...\n"
	"Checks each SKILL (a skill directory or its SKILL.md) against the Agent Skills spec,\n"
	"with the rules and messages of the reference validator skills-ref, plus lint warnings.\n"
	"Exit status: 0 every skill valid, 1 some skill invalid, 2 some skill unusable\n"
	"(cannot be read as a skill) or bad usage.\n";

static bool json, no_lint;
static const struct opt rows[] = {
	OPT_BOOL("json", &json, "one JSON report per skill on stdout (one line each)"),
	OPT_BOOL("no-lint", &no_lint, "spec rules only, no warnings"),
	OPT_END,
};

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, CHECK_FORMAT_VERSION);
	struct strlist skills;
	opts_args_or_die(rows, argc, argv, 1, &skills);
	struct check_options o = { !no_lint, NULL, 0 };
	if (!skills.n)
		die(2, "no skill given; usage: skillc-check [--json] [--no-lint] SKILL...");
	int worst = CHECK_VALID;
	for (size_t i = 0; i < skills.n; i++) {
		struct check_report *r;
		int v = check_skill_opts(skills.v[i], &o, &r);
		struct buf out = BUF_INIT;
		if (json) {
			cJSON *j = check_report_json(r);
			json_canon(j, false, &out);
			buf_addc(&out, '\n');
			cJSON_Delete(j);
		} else {
			check_report_text(r, &out);
		}
		fwrite(out.data, 1, out.len, stdout);
		fflush(stdout);
		buf_free(&out);
		/* unusable input gets the tool's one-line error on stderr too */
		if (v == CHECK_UNUSABLE)
			warnf("%s", check_first_error(r));
		if (v > worst)
			worst = v;
		check_report_free(r);
	}
	strlist_free(&skills);
	return worst;
}
