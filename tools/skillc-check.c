/* skillc-check — judges Agent Skills against the spec as the reference
 * validator (skills-ref) does, and lints them on top. See docs/check.md. */
#include <stdio.h>
#include <string.h>

#include "skill/validate.h"
#include "base/json.h"
#include "base/log.h"

static const char usage[] =
	"usage: skillc-check [--json] [--no-lint] SKILL...\n"
	"Checks each SKILL (a skill directory or its SKILL.md) against the Agent Skills spec,\n"
	"with the rules and messages of the reference validator skills-ref, plus lint warnings.\n"
	"  --json     one JSON report per skill on stdout (one line each)\n"
	"  --no-lint  spec rules only, no warnings\n"
	"Exit status: 0 every skill valid, 1 some skill invalid, 2 some skill unusable\n"
	"(cannot be read as a skill) or bad usage.\n";

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, CHECK_FORMAT_VERSION);
	bool json = false;
	struct check_options o = { true, NULL, 0 };
	int first = 1;
	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		const char *a = argv[first];
		if (!strcmp(a, "--")) {
			first++;
			break;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--no-lint")) {
			o.lint = false;
		} else {
			die(2, "unknown option %s; see skillc-check --help", a);
		}
	}
	if (first >= argc)
		die(2, "no skill given; usage: skillc-check [--json] [--no-lint] SKILL...");
	int worst = CHECK_VALID;
	for (int i = first; i < argc; i++) {
		struct check_report *r;
		int v = check_skill_opts(argv[i], &o, &r);
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
	return worst;
}
