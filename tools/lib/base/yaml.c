#include "base/yaml.h"

#include <yaml.h>

#include "base/fs.h"

struct yp {
	yaml_parser_t parser;
	const char *what;
	struct err *e;
};

static int fail(struct yp *p, yaml_mark_t m, const char *msg)
{
	return err_set(p->e, ERR_INPUT, "%s:%zu: %s", p->what, m.line + 1, msg);
}

static int next(struct yp *p, yaml_event_t *ev)
{
	if (yaml_parser_parse(&p->parser, ev))
		return 0;
	return err_set(p->e, ERR_INPUT, "%s:%zu: not YAML: %s", p->what, p->parser.problem_mark.line + 1,
	               p->parser.problem ? p->parser.problem : "cannot parse");
}

static int node(struct yp *p, yaml_event_t *ev, cJSON **out, int depth);

static int mapping(struct yp *p, yaml_event_t *start, cJSON **out, int depth)
{
	cJSON *obj = cJSON_CreateObject();
	yaml_event_delete(start);
	for (;;) {
		yaml_event_t k;
		if (next(p, &k) < 0)
			goto bad;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			*out = obj;
			return 0;
		}
		if (k.type != YAML_SCALAR_EVENT) {
			fail(p, k.start_mark, "a key must be plain text");
			yaml_event_delete(&k);
			goto bad;
		}
		char *key = xstrndup((const char *)k.data.scalar.value, k.data.scalar.length);
		yaml_mark_t at = k.start_mark;
		yaml_event_delete(&k);
		if (cJSON_GetObjectItemCaseSensitive(obj, key)) {
			free(key);
			fail(p, at, "a key given twice");
			goto bad;
		}
		yaml_event_t v;
		cJSON *val = NULL;
		if (next(p, &v) < 0 || node(p, &v, &val, depth + 1) < 0) {
			free(key);
			goto bad;
		}
		cJSON_AddItemToObject(obj, key, val);
		free(key);
	}
bad:
	cJSON_Delete(obj);
	return -1;
}

static int sequence(struct yp *p, yaml_event_t *start, cJSON **out, int depth)
{
	cJSON *arr = cJSON_CreateArray();
	yaml_event_delete(start);
	for (;;) {
		yaml_event_t v;
		if (next(p, &v) < 0)
			break;
		if (v.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&v);
			*out = arr;
			return 0;
		}
		cJSON *item = NULL;
		if (node(p, &v, &item, depth + 1) < 0)
			break;
		cJSON_AddItemToArray(arr, item);
	}
	cJSON_Delete(arr);
	return -1;
}

/* Consumes ev (and the events of its children). */
static int node(struct yp *p, yaml_event_t *ev, cJSON **out, int depth)
{
	int rc = -1;
	if (depth > 64)
		fail(p, ev->start_mark, "nested deeper than 64");
	else if (ev->type == YAML_ALIAS_EVENT ||
	         (ev->type == YAML_SCALAR_EVENT && ev->data.scalar.anchor) ||
	         (ev->type == YAML_MAPPING_START_EVENT && ev->data.mapping_start.anchor) ||
	         (ev->type == YAML_SEQUENCE_START_EVENT && ev->data.sequence_start.anchor))
		fail(p, ev->start_mark, "anchors and aliases (&x, *x) are not taken: write the value out");
	else if (ev->type == YAML_SCALAR_EVENT) {
		char *s = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		*out = cJSON_CreateString(s);
		free(s);
		rc = 0;
	} else if (ev->type == YAML_MAPPING_START_EVENT)
		return mapping(p, ev, out, depth);
	else if (ev->type == YAML_SEQUENCE_START_EVENT)
		return sequence(p, ev, out, depth);
	else
		fail(p, ev->start_mark, "unexpected YAML");
	yaml_event_delete(ev);
	return rc;
}

/* Parses text (what names it, for messages); *out is the caller's to free
 * (an empty document gives an empty object). */
static int yaml_to_json(const char *text, size_t len, const char *what, cJSON **out, struct err *e)
{
	struct yp p = { .what = what, .e = e };
	*out = NULL;
	if (!yaml_parser_initialize(&p.parser))
		return err_set(e, ERR_WORK, "%s: cannot start the YAML parser", what);
	yaml_parser_set_input_string(&p.parser, (const unsigned char *)text, len);
	yaml_event_t ev;
	int rc = -1;
	cJSON *root = NULL;
	/* stream start, document start (or stream end: empty) */
	if (next(&p, &ev) < 0)
		goto out;
	yaml_event_delete(&ev);
	if (next(&p, &ev) < 0)
		goto out;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		*out = cJSON_CreateObject();
		rc = 0;
		goto out;
	}
	yaml_event_delete(&ev);
	if (next(&p, &ev) < 0 || node(&p, &ev, &root, 0) < 0)
		goto out;
	if (next(&p, &ev) < 0) /* document end */
		goto out;
	yaml_event_delete(&ev);
	if (next(&p, &ev) < 0)
		goto out;
	if (ev.type != YAML_STREAM_END_EVENT) {
		fail(&p, ev.start_mark, "more than one document (---): give one");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev);
	*out = root;
	root = NULL;
	rc = 0;
out:
	cJSON_Delete(root);
	yaml_parser_delete(&p.parser);
	return rc;
}

int yaml_read_file(const char *path, cJSON **out, struct err *e)
{
	struct buf b = BUF_INIT;
	*out = NULL;
	if (fs_read(path, 16 << 20, &b, e) < 0)
		return -1;
	int rc = yaml_to_json(b.data, b.len, path, out, e);
	buf_free(&b);
	return rc;
}
