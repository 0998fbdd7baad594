#include "optimize/traces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/harness.h"
#include "eval/trial.h"

/* ---------------------------------------------------------------- loading */

static int index_of(const char *name, int fallback)
{
	long n = trial_index(name);
	return n < 1 || n > 1000000 ? fallback : (int)n;
}

static bool outcome_scorable(const cJSON *t)
{
	const char *o = json_str(t, "outcome");
	return json_bool(t, "complete", false) && o &&
	       (!strcmp(o, "passed") || !strcmp(o, "failed") || !strcmp(o, "timeout"));
}

static void push_trace(struct trace_set *s, const char *dir, const char *name, cJSON *trial, int pos)
{
	s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	struct trace *t = &s->v[s->n++];
	*t = (struct trace){ 0 };
	t->name = xstrdup(name);
	t->dir = path_join(dir, name);
	t->trial = trial;
	t->index = index_of(name, pos);
	t->scorable = outcome_scorable(trial);
}

/* test-001 .. test-<count>, each with its trial.json. */
static int load_counted(const char *dir, int count, struct trace_set *out, struct err *e)
{
	for (int i = 1; i <= count; i++) {
		char name[TRIAL_NAME_MAX];
		trial_name(i, name);
		char *p = xasprintf("%s/%s/trial.json", dir, name);
		cJSON *t = fs_exists(p) ? json_read_file(p, e) : NULL;
		if (!t) {
			if (!fs_exists(p))
				err_set(e, ERR_INPUT, "trace '%s/%s' has no trial.json: its trial has not run (make runs it)", dir, name);
			free(p);
			return -1;
		}
		free(p);
		push_trace(out, dir, name, t, i);
	}
	return 0;
}

/* Every subfolder holding a trial: trial.json, else a BenchFlow or Harbor
 * layout that trial_parse reads. */
static int load_any(const char *dir, const struct trace_opts *o, struct trace_set *out, struct err *e)
{
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(dir, &names, e) < 0)
		return err_set(e, ERR_INPUT, "cannot read the traces folder '%s': %s", dir, e->msg);
	struct err re = { 0 };
	char *rules = harness_rules_dir(NULL, &re); /* only folders without trial.json need it */
	struct trial_opts to = { NULL, rules, "benchflow", o->skills, false, NULL };
	for (size_t i = 0; i < names.n; i++) {
		char *sub = path_join(dir, names.v[i]);
		char *tj = path_join(sub, "trial.json");
		cJSON *t = NULL;
		struct err pe = { 0 };
		if (fs_exists(tj))
			t = json_read_file(tj, &pe);
		else if (fs_is_dir(sub) && rules)
			t = trial_parse(sub, sub, &to, &pe);
		if (t)
			push_trace(out, dir, names.v[i], t, (int)out->n + 1);
		free(tj);
		free(sub);
	}
	free(rules);
	strlist_free(&names);
	if (!out->n)
		return err_set(e, ERR_INPUT, "no traces in '%s': give a folder of trial folders (test-NNN/trial.json) or of BenchFlow runs", dir);
	return 0;
}

int traces_load(const char *dir, const struct trace_opts *o, struct trace_set *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!fs_is_dir(dir))
		return err_set(e, ERR_INPUT, "traces folder '%s' does not exist", dir);
	return o->count > 0 ? load_counted(dir, o->count, out, e) : load_any(dir, o, out, e);
}

int traces_load_more(const char *dir, const char *prefix, const struct trace_opts *o,
                     struct trace_set *out, struct err *e)
{
	struct trace_set more;
	if (traces_load(dir, o, &more, e) < 0) {
		traces_free(&more);
		return -1;
	}
	out->v = xrealloc(out->v, (out->n + more.n) * sizeof *out->v);
	for (size_t i = 0; i < more.n; i++) {
		struct trace *t = &out->v[out->n++];
		*t = more.v[i];
		t->name = xasprintf("%s/%s", prefix, more.v[i].name);
		free(more.v[i].name);
	}
	free(more.v);
	return 0;
}

void traces_free(struct trace_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].dir);
		free(s->v[i].instruction);
		cJSON_Delete(s->v[i].trial);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

const struct trace *traces_find(const struct trace_set *s, const char *name)
{
	for (size_t i = 0; name && i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

size_t traces_scorable(const struct trace_set *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].scorable;
	return n;
}

/* ---------------------------------------------------------------- text */

/* The longest prefix of s no longer than max bytes that ends on a UTF-8
 * character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* One line of text: newlines and tabs become spaces, cut at max bytes. */
static void add_flat(struct buf *out, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s), n = utf8_cut(s, len, max);
	for (size_t i = 0; i < n; i++)
		buf_addc(out, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i]);
	if (n < len)
		buf_adds(out, " ...");
}

void text_squash(const char *s, size_t n, struct buf *out)
{
	bool space = false, any = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v') {
			space = any;
			continue;
		}
		if (space)
			buf_addc(out, ' ');
		buf_addc(out, c);
		space = false;
		any = true;
	}
	if (!out->cap)
		buf_adds(out, "");
}

bool text_quotes(const char *hay, const char *quote)
{
	if (!hay || !quote)
		return false;
	struct buf q = BUF_INIT;
	text_squash(quote, strlen(quote), &q);
	size_t solid = 0;
	for (size_t i = 0; i < q.len; i++)
		solid += q.data[i] != ' ';
	bool found = solid >= 4 && strstr(hay, q.data) != NULL;
	buf_free(&q);
	return found;
}

/* ---------------------------------------------------------------- facts */

struct walk {
	struct trace_facts *f;
	const struct strlist *pointed;
	struct strlist seen;   /* "kind\ntitle" of every tool call so far */
	struct strlist lines;  /* the condensed trajectory, one entry per line */
};

/* The text blocks and diff paths of a tool call's content, joined. */
static void content_text(const cJSON *ev, struct buf *out)
{
	const cJSON *c = json_get(ev, "content");
	for (const cJSON *item = cJSON_IsArray(c) ? c->child : NULL; item; item = item->next) {
		const char *text = json_str(json_get(item, "content"), "text");
		if (!text)
			text = json_str(item, "path");
		if (!text)
			text = json_str(item, "text");
		if (text) {
			if (out->len)
				buf_addc(out, ' ');
			buf_adds(out, text);
		}
	}
}

static void note_refs(struct walk *w, const char *title, const char *content)
{
	for (size_t i = 0; w->pointed && i < w->pointed->n; i++) {
		const char *p = w->pointed->v[i];
		if ((title && strstr(title, p)) || (content && strstr(content, p)))
			strlist_push_new(&w->f->refs_read, p);
	}
}

static void on_tool_call(struct walk *w, const cJSON *ev)
{
	const char *kind = json_str(ev, "kind"), *title = json_str(ev, "title"), *status = json_str(ev, "status");
	struct trace_facts *f = w->f;
	f->steps++;
	bool failed = status && (!strcmp(status, "failed") || !strcmp(status, "error"));
	f->failed_calls += failed;
	char *sig = xasprintf("%s\n%s", kind ? kind : "", title ? title : "");
	bool again = strlist_has(&w->seen, sig);
	f->repeats += again;
	strlist_push_owned(&w->seen, sig);
	struct buf content = BUF_INIT;
	content_text(ev, &content);
	note_refs(w, title, content.data);
	struct buf line = BUF_INIT;
	buf_printf(&line, "[%ld] %s %s%s: ", f->steps, kind ? kind : "tool", status ? status : "?",
		   again ? " (repeated)" : "");
	add_flat(&line, title ? title : "", 240);
	if (content.len) {
		buf_adds(&line, " => ");
		add_flat(&line, content.data, failed ? 600 : 240);
	}
	strlist_push_owned(&w->lines, buf_detach(&line));
	buf_free(&content);
}

static void on_event(const cJSON *ev, long lineno, void *arg)
{
	struct walk *w = arg;
	const char *type = json_str(ev, "type");
	if (!type)
		return;
	struct buf line = BUF_INIT;
	if (!strcmp(type, "tool_call")) {
		on_tool_call(w, ev);
	} else if (!strcmp(type, "user_message")) {
		if (!w->f->prompt && json_str(ev, "text"))
			w->f->prompt = xstrdup(json_str(ev, "text"));
	} else if (!strcmp(type, "agent_message")) {
		buf_adds(&line, "agent: ");
		add_flat(&line, json_str(ev, "text"), 300);
	} else if (!strcmp(type, "agent_thought")) {
		buf_adds(&line, "thought: ");
		add_flat(&line, json_str(ev, "text"), 200);
	} else if (!strcmp(type, "agent_timeout")) {
		w->f->timed_out = true;
		buf_printf(&line, "agent timed out (%s)", json_str(ev, "reason") ? json_str(ev, "reason") : "time limit");
	}
	if (line.len)
		strlist_push_owned(&w->lines, buf_detach(&line));
	buf_free(&line);
}

/* The lines joined; when too long, the first quarter and the rest from the
 * end, with the number of lines left out between them. */
static void join_lines(const struct strlist *lines, struct trace_facts *f)
{
	size_t total = 0;
	for (size_t i = 0; i < lines->n; i++)
		total += strlen(lines->v[i]) + 1;
	size_t head = lines->n, tail_from = lines->n;
	if (total > TRACE_TEXT_MAX) {
		size_t used = 0;
		for (head = 0; head < lines->n && used + strlen(lines->v[head]) + 1 <= TRACE_TEXT_MAX / 4; head++)
			used += strlen(lines->v[head]) + 1;
		used = 0;
		for (tail_from = lines->n; tail_from > head && used + strlen(lines->v[tail_from - 1]) + 1 <= TRACE_TEXT_MAX * 3 / 4 - 64;
		     tail_from--)
			used += strlen(lines->v[tail_from - 1]) + 1;
	}
	for (size_t i = 0; i < head; i++)
		buf_printf(&f->text, "%s\n", lines->v[i]);
	if (tail_from > head) {
		f->text_lines_cut = (long)(tail_from - head);
		if (tail_from < lines->n)
			buf_printf(&f->text, "[... %ld lines left out ...]\n", f->text_lines_cut);
	}
	for (size_t i = tail_from; i < lines->n; i++)
		buf_printf(&f->text, "%s\n", lines->v[i]);
	if (!f->text.cap)
		buf_adds(&f->text, "");
}

static char *trial_file(const struct trace *t, const char *key)
{
	const char *rel = json_str(json_get(t->trial, "files"), key);
	return rel ? path_join(t->dir, rel) : NULL;
}

/* CTRF (ctrf.json, what pytest --ctrf writes): results.summary.{tests,
 * passed} and results.tests[] {name, status, message}. */
static void read_ctrf(const char *path, cJSON *v)
{
	cJSON *c = json_read_opt(path);
	const cJSON *res = json_get(c, "results");
	const cJSON *sum = json_get(res, "summary");
	if (sum && json_get(sum, "tests")) {
		json_set_num(v, "tests_total", json_num(sum, "tests", 0));
		json_set_num(v, "tests_passed", json_num(sum, "passed", 0));
	}
	cJSON *failing = json_set(v, "failing", cJSON_CreateArray());
	const cJSON *tests = json_get(res, "tests");
	for (const cJSON *t = cJSON_IsArray(tests) ? tests->child : NULL; t; t = t->next) {
		const char *st = json_str(t, "status");
		if (!st || !strcmp(st, "passed") || !strcmp(st, "skipped") || !strcmp(st, "pending"))
			continue;
		cJSON *x = cJSON_CreateObject();
		json_set_str(x, "name", json_str(t, "name") ? json_str(t, "name") : "?");
		struct buf m = BUF_INIT;
		add_flat(&m, json_str(t, "message") ? json_str(t, "message") : json_str(t, "trace"), 400);
		json_set_str(x, "message", m.data);
		buf_free(&m);
		cJSON_AddItemToArray(failing, x);
	}
	cJSON_Delete(c);
}

static void read_stdout_tail(const char *path, cJSON *v)
{
	struct buf b = BUF_INIT;
	struct err e;
	if (fs_exists(path) && fs_read(path, 1 << 24, &b, &e) == 0 && b.len) {
		size_t keep = 1200, from = b.len > keep ? b.len - keep : 0;
		while (from < b.len && ((unsigned char)b.data[from] & 0xC0) == 0x80)
			from++;
		json_set_str(v, "stdout", b.data + from);
	}
	buf_free(&b);
}

static cJSON *read_verifier(const struct trace *t)
{
	cJSON *v = cJSON_CreateObject();
	const cJSON *rw = json_get(t->trial, "reward");
	json_set(v, "reward", cJSON_IsNumber(rw) ? cJSON_CreateNumber(rw->valuedouble) : cJSON_CreateNull());
	char *rollout = trial_file(t, "rollout");
	char *vdir = rollout ? path_join(rollout, "verifier") : NULL;
	if (vdir) {
		char *p = path_join(vdir, "ctrf.json");
		read_ctrf(p, v);
		free(p);
		p = path_join(vdir, "test-stdout.txt");
		read_stdout_tail(p, v);
		free(p);
	}
	if (!json_get(v, "failing"))
		json_set(v, "failing", cJSON_CreateArray());
	free(vdir);
	free(rollout);
	return v;
}

void trace_facts_read(const struct trace *t, const struct strlist *pointed, struct trace_facts *f)
{
	memset(f, 0, sizeof *f);
	const cJSON *tok = json_get(t->trial, "tokens");
	f->tokens = cJSON_IsNumber(json_get(tok, "total")) ? json_num(tok, "total", -1) : -1;
	const cJSON *d = json_get(t->trial, "durations");
	f->seconds = cJSON_IsNumber(json_get(d, "agent_execution")) ? json_num(d, "agent_execution", -1)
		   : cJSON_IsNumber(json_get(d, "total"))         ? json_num(d, "total", -1)
								  : -1;
	const cJSON *sk = json_get(t->trial, "skill");
	f->skill_invoked = json_bool(sk, "invoked", false);
	f->skill_read = json_bool(sk, "read", false);
	struct walk w = { f, pointed, STRLIST_INIT, STRLIST_INIT };
	char *acp = trial_file(t, "acp_trajectory");
	long bad;
	if (acp)
		trial_jsonl_each(acp, on_event, &w, &bad);
	free(acp);
	const char *outcome = json_str(t->trial, "outcome");
	if (outcome && !strcmp(outcome, "timeout"))
		f->timed_out = true;
	join_lines(&w.lines, f);
	strlist_free(&w.seen);
	strlist_free(&w.lines);
	f->verifier = read_verifier(t);
	if (!f->prompt)
		f->prompt = xstrdup("");
}

void trace_facts_free(struct trace_facts *f)
{
	strlist_free(&f->refs_read);
	buf_free(&f->text);
	cJSON_Delete(f->verifier);
	free(f->prompt);
	memset(f, 0, sizeof *f);
}

const char *trace_skill_use(const struct trace *t, const char *name)
{
	const cJSON *sk = json_get(t->trial, "skill");
	return json_has_str(json_get(sk, "invoked_names"), name) ? "invoked"
	       : json_has_str(json_get(sk, "read_names"), name)  ? "read"
								 : "not used";
}

void trace_skills_text(const struct trace *t, const struct strlist *names, struct buf *out)
{
	buf_adds(out, "skills:");
	for (size_t i = 0; i < names->n; i++)
		buf_printf(out, "%s %s %s", i ? "," : "", names->v[i], trace_skill_use(t, names->v[i]));
}

void trace_verifier_text(const cJSON *v, struct buf *out)
{
	const cJSON *rw = json_get(v, "reward");
	if (cJSON_IsNumber(rw))
		buf_printf(out, "Verifier: reward %g", rw->valuedouble);
	else
		buf_adds(out, "Verifier: no reward");
	if (json_get(v, "tests_total"))
		buf_printf(out, "; tests %ld of %ld passed", (long)json_num(v, "tests_passed", 0),
			   (long)json_num(v, "tests_total", 0));
	buf_addc(out, '\n');
	const cJSON *failing = json_get(v, "failing");
	if (cJSON_GetArraySize(failing)) {
		buf_adds(out, "Failing tests:\n");
		for (const cJSON *x = failing->child; x; x = x->next)
			buf_printf(out, "- %s: %s\n", json_str(x, "name"), json_str(x, "message"));
	}
	if (json_str(v, "stdout")) {
		buf_adds(out, "Test output (end):\n");
		buf_adds(out, json_str(v, "stdout"));
		if (out->len && out->data[out->len - 1] != '\n')
			buf_addc(out, '\n');
	}
}
