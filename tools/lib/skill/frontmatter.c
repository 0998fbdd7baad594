#include "skill/frontmatter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <yaml.h>

#include "base/util.h"

struct fmp {
	yaml_parser_t yp;
	const char *text;
	size_t len;
	int line0, col0;
	struct fm_error *fe;
	bool flow; /* a flow collection was met (fe says where): fm_parse returns 1 */
};

static void pos(const struct fmp *p, yaml_mark_t m, int *line, int *col)
{
	*line = p->line0 + (int)m.line;
	*col = (int)m.column + (m.line == 0 ? p->col0 : 1);
}

static int fail(struct fmp *p, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct fmp *p, yaml_mark_t m, const char *fmt, ...)
{
	if (p->flow)
		return -1; /* the flow collection noted first says best what is wrong (an unclosed [) */
	va_list ap;
	pos(p, m, &p->fe->line, &p->fe->col);
	va_start(ap, fmt);
	vsnprintf(p->fe->msg, sizeof p->fe->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* The text line holding mark m (without its newline). */
static void line_text(const struct fmp *p, yaml_mark_t m, const char **s, size_t *n)
{
	const char *t = p->text, *end = p->text + p->len;
	for (size_t l = 0; l < m.line && t < end; l++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		t = nl ? nl + 1 : end;
	}
	const char *nl = memchr(t, '\n', (size_t)(end - t));
	*s = t;
	*n = (size_t)((nl ? nl : end) - t);
	if (*n && t[*n - 1] == '\r')
		(*n)--;
}

/* "key: value" with value quoted: double quotes unless the value holds
 * some, then single quotes, doubling any single quote. */
static void quote_fix(char *out, size_t cap, const char *indent, size_t ni, const char *key, size_t nk,
		      const char *val, size_t nv)
{
	struct buf b = BUF_INIT;
	buf_add(&b, indent, ni);
	buf_add(&b, key, nk);
	buf_adds(&b, ": ");
	bool dq = !memchr(val, '"', nv) && !memchr(val, '\\', nv);
	buf_addc(&b, dq ? '"' : '\'');
	for (size_t i = 0; i < nv; i++) {
		if (!dq && val[i] == '\'')
			buf_addc(&b, '\'');
		buf_addc(&b, val[i]);
	}
	buf_addc(&b, dq ? '"' : '\'');
	snprintf(out, cap, "%s", b.data);
	buf_free(&b);
}

/* libyaml's own error, with advice for the unquoted ": " mistake. */
static int parse_error(struct fmp *p)
{
	yaml_parser_t *yp = &p->yp;
	const char *problem = yp->problem ? yp->problem : "syntax error";
	yaml_mark_t m = yp->problem_mark;
	if (!strstr(problem, "mapping values are not allowed"))
		return fail(p, m, "%s%s%s", yp->context ? yp->context : "", yp->context ? ": " : "", problem);

	const char *s;
	size_t n;
	line_text(p, m, &s, &n);
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t k = i;
	while (k < n && s[k] != ':' && s[k] != '#')
		k++;
	bool keyed = k < n && s[k] == ':' && k > i && k + 1 < n && (s[k + 1] == ' ' || s[k + 1] == '\t') &&
		     k < m.column && s[i] != '-' && s[i] != '"' && s[i] != '\'';
	if (keyed) {
		size_t v = k + 1;
		while (v < n && (s[v] == ' ' || s[v] == '\t'))
			v++;
		size_t ve = n;
		while (ve > v && (s[ve - 1] == ' ' || s[ve - 1] == '\t'))
			ve--;
		quote_fix(p->fe->fix, sizeof p->fe->fix, s, i, s + i, k - i, s + v, ve - v);
		return fail(p, m, "the value of '%.*s' contains \": \" (a colon and a space), which YAML "
			    "reads as a nested key; quote the value: %s", (int)(k - i), s + i, p->fe->fix);
	}
	return fail(p, m, "a line of a multi-line value contains \": \" (a colon and a space), which "
		    "YAML reads as a nested key; quote the whole value or write it as a folded block "
		    "(key: >-, then the text indented on the following lines)");
}

static struct fm_node *node_new(struct fmp *p, enum fm_kind k, yaml_mark_t m)
{
	struct fm_node *n = xcalloc(1, sizeof *n);
	n->kind = k;
	pos(p, m, &n->line, &n->col);
	return n;
}

void fm_free(struct fm_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; n->kind == FM_MAP && i < n->n; i++) {
		fm_free(n->pairs[i].key);
		fm_free(n->pairs[i].val);
	}
	for (size_t i = 0; n->kind == FM_SEQ && i < n->n; i++)
		fm_free(n->items[i]);
	free(n->pairs);
	free(n->items);
	free(n->str);
	free(n);
}

static int next(struct fmp *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&p->yp, ev))
		return parse_error(p);
	return 0;
}

/* Refuses what strictyaml refuses in the event itself; a flow collection,
 * which every YAML loader an agent uses reads, is only noted (p->flow). */
static int strict_event(struct fmp *p, yaml_event_t *ev)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return fail(p, ev->start_mark, "aliases (*%s) are not allowed in frontmatter; write the value out",
			    (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor, tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor, tag = ev->data.sequence_start.tag;
		if (ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE && !p->flow)
			p->flow = fail(p, ev->start_mark, "flow sequences ([...]) are not allowed in frontmatter; "
				       "write one \"- item\" per line, or quote the value if it is text") < 0;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor, tag = ev->data.mapping_start.tag;
		if (ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE && !p->flow)
			p->flow = fail(p, ev->start_mark, "flow mappings ({...}) are not allowed in frontmatter; "
				       "write one \"key: value\" per line, or quote the value if it is text") < 0;
		break;
	default:
		return 0;
	}
	if (anchor)
		return fail(p, ev->start_mark, "anchors (&%s) are not allowed in frontmatter", (const char *)anchor);
	if (tag)
		return fail(p, ev->start_mark, "tags (%s) are not allowed in frontmatter", (const char *)tag);
	return 0;
}

static int parse_node(struct fmp *p, yaml_event_t *ev, struct fm_node **out, int depth);

static int parse_map(struct fmp *p, yaml_event_t *start, struct fm_node **out, int depth)
{
	struct fm_node *m = node_new(p, FM_MAP, start->start_mark);
	*out = m;
	for (;;) {
		yaml_event_t ev;
		if (next(p, &ev) < 0)
			return -1;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (strict_event(p, &ev) < 0) {
			yaml_event_delete(&ev);
			return -1;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			int rc = fail(p, ev.start_mark, "mapping keys must be plain strings");
			yaml_event_delete(&ev);
			return rc;
		}
		struct fm_node *key = NULL, *val = NULL;
		int rc = parse_node(p, &ev, &key, depth + 1);
		yaml_event_delete(&ev);
		if (rc < 0) {
			fm_free(key);
			return -1;
		}
		for (size_t i = 0; i < m->n; i++) {
			if (m->pairs[i].key->len == key->len && !memcmp(m->pairs[i].key->str, key->str, key->len)) {
				p->fe->line = key->line, p->fe->col = key->col;
				snprintf(p->fe->msg, sizeof p->fe->msg, "duplicate key '%s' (first at line %d); "
					 "keep one", key->str, m->pairs[i].key->line);
				fm_free(key);
				return -1;
			}
		}
		if (next(p, &ev) < 0) {
			fm_free(key);
			return -1;
		}
		rc = parse_node(p, &ev, &val, depth + 1);
		yaml_event_delete(&ev);
		if (rc < 0) {
			fm_free(key);
			fm_free(val);
			return -1;
		}
		GROW(m->pairs, m->n, m->cap);
		m->pairs[m->n].key = key;
		m->pairs[m->n].val = val;
		m->n++;
	}
}

static int parse_seq(struct fmp *p, yaml_event_t *start, struct fm_node **out, int depth)
{
	struct fm_node *s = node_new(p, FM_SEQ, start->start_mark);
	*out = s;
	for (;;) {
		yaml_event_t ev;
		if (next(p, &ev) < 0)
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		struct fm_node *item = NULL;
		int rc = parse_node(p, &ev, &item, depth + 1);
		yaml_event_delete(&ev);
		if (item) {
			GROW(s->items, s->n, s->cap);
			s->items[s->n++] = item;
		}
		if (rc < 0)
			return -1;
	}
}

static int parse_node(struct fmp *p, yaml_event_t *ev, struct fm_node **out, int depth)
{
	if (strict_event(p, ev) < 0)
		return -1;
	if (depth > 64)
		return fail(p, ev->start_mark, "frontmatter nests deeper than 64 levels");
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		struct fm_node *n = node_new(p, FM_SCALAR, ev->start_mark);
		*out = n;
		n->len = ev->data.scalar.length;
		if (memchr(ev->data.scalar.value, '\0', n->len))
			return fail(p, ev->start_mark, "NUL characters are not allowed in frontmatter values");
		n->str = xstrndup((const char *)ev->data.scalar.value, n->len);
		switch (ev->data.scalar.style) {
		case YAML_SINGLE_QUOTED_SCALAR_STYLE: n->style = FM_SINGLE; break;
		case YAML_DOUBLE_QUOTED_SCALAR_STYLE: n->style = FM_DOUBLE; break;
		case YAML_LITERAL_SCALAR_STYLE: n->style = FM_LITERAL; break;
		case YAML_FOLDED_SCALAR_STYLE: n->style = FM_FOLDED; break;
		default: n->style = FM_PLAIN; break;
		}
		return 0;
	}
	case YAML_MAPPING_START_EVENT:
		return parse_map(p, ev, out, depth);
	case YAML_SEQUENCE_START_EVENT:
		return parse_seq(p, ev, out, depth);
	default:
		return fail(p, ev->start_mark, "unexpected YAML event");
	}
}

int fm_parse(const char *text, size_t len, int line0, int col0, struct fm_node **root,
	     struct fm_error *fe)
{
	struct fmp p;
	memset(&p, 0, sizeof p);
	memset(fe, 0, sizeof *fe);
	p.text = text, p.len = len, p.line0 = line0, p.col0 = col0, p.fe = fe;
	*root = NULL;
	yaml_parser_initialize(&p.yp);
	yaml_parser_set_input_string(&p.yp, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&p.yp, YAML_UTF8_ENCODING);
	int rc = 0, docs = 0;
	for (;;) {
		yaml_event_t ev;
		if (next(&p, &ev) < 0) {
			rc = -1;
			break;
		}
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			rc = fail(&p, ev.start_mark, "frontmatter holds more than one YAML document");
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ev.data.document_start.version_directive) {
			rc = fail(&p, ev.start_mark, "YAML directives are not allowed in frontmatter");
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_SCALAR_EVENT || t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT ||
		    t == YAML_ALIAS_EVENT) {
			rc = parse_node(&p, &ev, root, 0);
			yaml_event_delete(&ev);
			if (rc < 0)
				break;
			continue;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p.yp);
	if (rc < 0) {
		fm_free(*root);
		*root = NULL;
	}
	return rc == 0 && p.flow ? 1 : rc;
}

const struct fm_node *fm_get(const struct fm_node *map, const char *key)
{
	if (!map || map->kind != FM_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(map->pairs[i].key->str, key))
			return map->pairs[i].val;
	return NULL;
}

bool fm_implicit_type(const struct fm_node *n, const char **what)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const bools[] = { "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
					     "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF" };
	if (n->kind != FM_SCALAR || n->style != FM_PLAIN)
		return false;
	const char *s = n->str;
	if (str_in(s, nulls, ARRAY_LEN(nulls)))
		return *what = "null", true;
	if (str_in(s, bools, ARRAY_LEN(bools)))
		return *what = "a boolean", true;
	/* numbers: [-+]digits, 0x.., 0o.., decimals with exponent, .inf/.nan */
	const char *t = s + (*s == '-' || *s == '+');
	char *end;
	if (*t && (isdigit((unsigned char)*t) || (*t == '.' && isdigit((unsigned char)t[1])))) {
		strtod(s, &end);
		if (!*end)
			return *what = "a number", true;
		if (t[0] == '0' && (t[1] == 'x' || t[1] == 'o') && t[2]) {
			strtoll(t + 2, &end, t[1] == 'x' ? 16 : 8);
			if (!*end)
				return *what = "a number", true;
		}
	}
	if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(s, ".nan") || !strcmp(s, ".NaN"))
		return *what = "a number", true;
	if (strlen(s) >= 10 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
	    isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) && s[4] == '-' &&
	    isdigit((unsigned char)s[5]) && isdigit((unsigned char)s[6]) && s[7] == '-' &&
	    isdigit((unsigned char)s[8]) && isdigit((unsigned char)s[9]) &&
	    (!s[10] || s[10] == 'T' || s[10] == 't' || s[10] == ' '))
		return *what = "a date", true;
	return false;
}
