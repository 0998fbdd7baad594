/* settings — writes what is generated from the one settings table
 * (tools/lib/pipeline/settings.c). `make` runs it (build/gen/settings):
 *   settings mk        mk/defaults.mk: a `?=` line per setting, SKILLC_SETTINGS,
 *                      and the settings part of `make help` (#: lines)
 *   settings md FILE   FILE with the part between the settings-table markers
 *                      replaced by the table of every setting (docs/settings.md)
 *   settings list      "NAME KIND DEFAULT" per setting (the tests read it)
 * Output goes to stdout; the Makefile moves it into place when it changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/util.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"

static const char begin_mark[] =
	"<!-- settings table: written by make from tools/lib/pipeline/settings.c; edit the table there -->\n";
static const char end_mark[] = "<!-- end of the settings table -->\n";

/* "NAME=default", and for a choice the others: "RUNNER=local|benchflow|harbor". */
static char *name_value(const struct setting_def *s)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s=%s", s->name, s->def);
	for (const char *p = s->kind == SET_ENUM ? s->choices : ""; *p;) {
		size_t w = strcspn(p, " ");
		if (w != strlen(s->def) || strncmp(p, s->def, w))
			buf_printf(&b, "|%.*s", (int)w, p);
		p += w;
		p += *p == ' ';
	}
	return buf_detach(&b);
}

static void print_mk(struct buf *b)
{
	buf_adds(b, "# defaults.mk — every setting and its default, and every stage. Written by\n"
	            "# make from the settings table (tools/lib/pipeline/settings.c) and the stage\n"
	            "# table (stages.c): do not edit, add a row there.\n"
	            "# Override a setting on the command line (make MODEL=vllm/Qwen/Qwen3.5-27B ...),\n"
	            "# in a local.mk beside the Makefile (never committed), or in the environment.\n"
	            "# Command line wins, then local.mk, then the environment, then these.\n\n");
	buf_adds(b, "# Every setting, in the order `make help` lists them.\nSKILLC_SETTINGS :=");
	for (size_t i = 0; i < settings_count; i++)
		buf_printf(b, " %s", settings_table[i].name);
	buf_adds(b, "\n\n# Every stage, a make goal each (from the stage table, tools/lib/pipeline/stages.c).\n"
	            "SKILLC_STAGE_GOALS :=");
	for (size_t i = 0; i < stage_count; i++)
		if (!stage_table[i].rounds) /* a round's stages are goals as deep-K-... targets */
			buf_printf(b, " %s", stage_table[i].name);
	for (size_t i = 0; i < group_count; i++)
		buf_printf(b, " %s", group_table[i].name);
	buf_adds(b, "\n\n# The settings this command gives (command line, local.mk, environment),\n"
	            "# found before the defaults below: a run keeps its recorded value of the rest.\n"
	            "# A make started by skillc gets the list from the one that started it.\n"
	            "ifeq ($(origin SKILLC_GIVEN),undefined)\n"
	            "SKILLC_GIVEN := $(foreach v,$(SKILLC_SETTINGS),$(if $(filter undefined,$(origin $v)),,$v))\n"
	            "endif\n\n");
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		buf_printf(b, "# %s\n%s ?=%s%s\n", s->help, s->name, *s->def ? " " : "", s->def);
	}
	buf_adds(b, "\n#: Settings (make VAR=value, local.mk or the environment; docs/settings.md):\n");
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		char *nv = name_value(s);
		buf_printf(b, "#:   %-32s %s\n", nv, s->help);
		free(nv);
	}
}

/* What a setting accepts, in a few words for the table. */
static void accepts(struct buf *b, const struct setting_def *s)
{
	switch (s->kind) {
	case SET_NAME:
		buf_adds(b, "a name");
		break;
	case SET_NAMES:
		buf_adds(b, "names");
		break;
	case SET_MODEL:
		buf_adds(b, "provider/model-id");
		break;
	case SET_MODELS:
		buf_adds(b, "provider/model-ids");
		break;
	case SET_PATH:
		buf_adds(b, "a path");
		break;
	case SET_URL:
		buf_adds(b, "a URL");
		break;
	case SET_ARGS:
		buf_adds(b, "options");
		break;
	case SET_INT:
		buf_printf(b, "%ld to %ld", s->min, s->max);
		break;
	case SET_DECIMAL:
		buf_printf(b, "%ld to %ld (decimal)", s->min, s->max);
		break;
	case SET_USD:
		buf_adds(b, "US dollars");
		break;
	case SET_IMAGE:
		buf_adds(b, "an image");
		break;
	case SET_ENUM:
		for (const char *p = s->choices; *p;) {
			size_t w = strcspn(p, " ");
			buf_printf(b, "%s`%.*s`", p == s->choices ? "" : ", ", (int)w, p);
			p += w;
			p += *p == ' ';
		}
		break;
	}
}

/* Text for a Markdown table cell: '|' escaped, '<' kept from becoming HTML. */
static void cell(struct buf *b, const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p == '|')
			buf_adds(b, "\\|");
		else if (*p == '<')
			buf_adds(b, "&lt;");
		else
			buf_addc(b, *p);
}

static void print_table(struct buf *b)
{
	buf_adds(b, begin_mark);
	buf_adds(b, "| variable | default | accepts | meaning | the run |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		buf_printf(b, "| `%s` | ", s->name);
		buf_printf(b, *s->def ? "`%s`" : "—", s->def);
		buf_adds(b, " | ");
		accepts(b, s);
		buf_adds(b, " | ");
		cell(b, s->help);
		buf_printf(b, " | %s |\n", s->scope == SCOPE_RUN ? "remembers it" : s->scope == SCOPE_IDENTITY ? "is named by it" : "—");
	}
	buf_adds(b, end_mark);
}

/* FILE with the text between the markers (or at its end, when it has none) replaced. */
static int print_md(struct buf *b, const char *file, struct err *e)
{
	struct buf old = BUF_INIT;
	if (fs_read(file, 4 << 20, &old, e) < 0)
		return -1;
	const char *start = strstr(old.data, begin_mark);
	const char *end = start ? strstr(start, end_mark) : NULL;
	if (start && !end) {
		buf_free(&old);
		return err_set(e, ERR_INPUT, "%s: the settings table has no end marker", file);
	}
	if (start)
		buf_add(b, old.data, (size_t)(start - old.data));
	else
		buf_printf(b, "%s\n", old.data);
	print_table(b);
	if (end)
		buf_adds(b, end + strlen(end_mark));
	buf_free(&old);
	return 0;
}

static void print_list(struct buf *b)
{
	static const char *const kinds[] = { [SET_NAME] = "name", [SET_MODEL] = "model", [SET_PATH] = "path",
	                                     [SET_URL] = "url", [SET_INT] = "int", [SET_ENUM] = "enum",
	                                     [SET_NAMES] = "names", [SET_MODELS] = "models",
	                                     [SET_ARGS] = "args", [SET_USD] = "usd",
	                                     [SET_DECIMAL] = "decimal", [SET_IMAGE] = "image" };
	for (size_t i = 0; i < settings_count; i++)
		buf_printf(b, "%s %s %s\n", settings_table[i].name, kinds[settings_table[i].kind], settings_table[i].def);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	if (argc == 2 && !strcmp(argv[1], "mk"))
		print_mk(&b);
	else if (argc == 2 && !strcmp(argv[1], "list"))
		print_list(&b);
	else if (argc == 3 && !strcmp(argv[1], "md")) {
		if (print_md(&b, argv[2], &e) < 0)
			die_err(&e);
	} else
		die(2, "usage: settings mk | settings md FILE | settings list");
	if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write the output: %m");
	buf_free(&b);
	return 0;
}
