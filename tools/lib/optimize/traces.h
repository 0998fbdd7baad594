/* traces.h — a set of traces of one skill on one task, as the optimizer
 * reads them: the trial folders of a stage (test-NNN/trial.json, written by
 * skillc-eval) or a folder of BenchFlow runs without trial.json (each
 * subfolder normalized with trial_parse), plus what the optimizer needs
 * from each trace: a condensed trajectory (the text prompts carry), the
 * structural facts the pre-score counts, and the verifier's evidence
 * (reward, tests passed / total and failing test names from ctrf.json,
 * the tail of test-stdout.txt). See docs/fast.md. */
#ifndef SKILLC_OPTIMIZE_TRACES_H
#define SKILLC_OPTIMIZE_TRACES_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

struct trace {
	char *name;    /* the folder's name, e.g. "test-003" */
	char *dir;     /* the trial folder */
	cJSON *trial;  /* the normalized trial (trial.json); owned */
	int index;     /* NNN of test-NNN, else the position in name order (1-based) */
	bool scorable; /* complete and scored: passed, failed or timeout (infra and verifier errors are not) */
	char *instruction; /* its task's instruction (AgentRM's input), set by the caller; NULL:
	                    * the trace's first prompt. Freed by traces_free. */
};

struct trace_set {
	struct trace *v;
	size_t n;
};

struct trace_opts {
	/* > 0: exactly the folders test-001 .. test-<count> (a make stage);
	 * each must hold a trial.json. 0: every subfolder that holds a trial. */
	int count;
	const struct strlist *skills; /* our skill names, for folders without trial.json */
};

/* Loads the traces under dir in name order. ERR_INPUT naming the folder
 * when it cannot be read, a required trial is missing, or it holds no
 * trial at all. out is freed with traces_free even on error. */
int traces_load(const char *dir, const struct trace_opts *o, struct trace_set *out, struct err *e);
/* traces_load's traces of dir appended to out, each named "<prefix>/<name>"
 * (another task's traces: test-001 is in each task). */
int traces_load_more(const char *dir, const char *prefix, const struct trace_opts *o,
                     struct trace_set *out, struct err *e);
void traces_free(struct trace_set *s);
const struct trace *traces_find(const struct trace_set *s, const char *name);
/* How many traces are scorable. */
size_t traces_scorable(const struct trace_set *s);

/* What one trace shows, read from its trajectory and verifier files. */
struct trace_facts {
	long steps;          /* tool calls */
	long failed_calls;   /* tool calls that ended failed */
	long repeats;        /* tool calls identical (kind, title) to an earlier one: loops */
	double tokens;       /* total tokens; < 0 unknown */
	double seconds;      /* agent execution time (else the trial's); < 0 unknown */
	bool skill_invoked, skill_read;
	bool timed_out;
	struct strlist refs_read; /* the pointed-to references/ files the agent opened */
	struct buf text;     /* the condensed trajectory (at most TRACE_TEXT_MAX bytes) */
	long text_lines_cut; /* lines left out of text to keep it short */
	cJSON *verifier;     /* {reward, tests_passed, tests_total, failing: [{name, message}], stdout} */
	char *prompt;        /* the first user message (the task as the agent got it); "" when none */
};
#define TRACE_TEXT_MAX 12000

/* Reads a trace's facts. pointed: the references/ paths the skill names
 * (skill-relative), to tell which of them the agent read. A trajectory
 * that cannot be read leaves the counts at 0 (the trial was complete, so
 * it is an empty one). Free with trace_facts_free. */
void trace_facts_read(const struct trace *t, const struct strlist *pointed, struct trace_facts *f);
void trace_facts_free(struct trace_facts *f);

/* How trace t used the skill folder `name` of a set, by trial.json's
 * skill.invoked_names and read_names: "invoked", "read" or "not used". */
const char *trace_skill_use(const struct trace *t, const char *name);
/* "skills: a invoked, b read, c not used" for every name. Appends. */
void trace_skills_text(const struct trace *t, const struct strlist *names, struct buf *out);

/* The verifier's evidence as prompt text: reward, tests passed / total,
 * each failing test with its message, the tail of the test output. Appends. */
void trace_verifier_text(const cJSON *verifier, struct buf *out);

/* Whitespace runs collapsed to one space, both ends trimmed. Appends. */
void text_squash(const char *s, size_t n, struct buf *out);
/* True when quote (whitespace-squashed, at least 4 non-space bytes) occurs
 * in the squashed haystack. */
bool text_quotes(const char *squashed_haystack, const char *quote);

#endif
