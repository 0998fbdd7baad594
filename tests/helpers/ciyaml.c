/* ciyaml — reads CI workflow files with libyaml for shell tests:
 *   ciyaml lint FILE          parse every document; exit 1 with
 *                             "FILE:line:col: problem" on a syntax error, a
 *                             duplicate mapping key (CI systems refuse
 *                             them; YAML parsers keep one silently), an
 *                             alias (workflow files rarely mean one) or a
 *                             tab in indentation
 *   ciyaml get FILE PATH      the scalar at PATH (keys and 0-based indexes
 *                             joined by '.'), as the YAML means it
 *   ciyaml len FILE PATH      items of the sequence / keys of the mapping
 *   ciyaml keys FILE PATH     the mapping's keys, one per line
 * PATH "" is the document root. Exit 1 when PATH is absent or of the
 * wrong kind, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

static const char *file;

static int lint_node(yaml_document_t *d, yaml_node_t *n)
{
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
			if (lint_node(d, yaml_document_get_node(d, *i)))
				return 1;
	} else if (n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *s = n->data.mapping.pairs.start, *t = n->data.mapping.pairs.top;
		for (yaml_node_pair_t *p = s; p < t; p++) {
			yaml_node_t *k = yaml_document_get_node(d, p->key);
			for (yaml_node_pair_t *q = s; q < p && k->type == YAML_SCALAR_NODE; q++) {
				yaml_node_t *k2 = yaml_document_get_node(d, q->key);
				if (k2->type == YAML_SCALAR_NODE && k2->data.scalar.length == k->data.scalar.length &&
				    !memcmp(k2->data.scalar.value, k->data.scalar.value, k->data.scalar.length)) {
					printf("%s:%zu:%zu: duplicate key '%s' (first at line %zu)\n", file,
					       k->start_mark.line + 1, k->start_mark.column + 1,
					       (const char *)k->data.scalar.value, k2->start_mark.line + 1);
					return 1;
				}
			}
			if (lint_node(d, k) || lint_node(d, yaml_document_get_node(d, p->value)))
				return 1;
		}
	}
	return 0;
}

/* Tabs before the first non-blank of a line: YAML forbids them in
 * indentation; libyaml reports some, not all (e.g. inside block scalars). */
static int lint_tabs(const char *text)
{
	size_t line = 1;
	for (const char *p = text; *p; line++) {
		for (const char *q = p; *q == ' ' || *q == '\t'; q++)
			if (*q == '\t') {
				printf("%s:%zu:%zu: a tab in indentation\n", file, line, (size_t)(q - p) + 1);
				return 1;
			}
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ciyaml: cannot read %s\n", path);
		exit(2);
	}
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	for (size_t r; b && (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (cap - n < 2)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (!b)
		exit(2);
	b[n] = 0;
	*len = n;
	return b;
}

/* Loads the first document into doc; lint: loads and checks every one. */
static int load(const char *text, size_t len, yaml_document_t *doc, int lint)
{
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0, first = 1;
	for (;;) {
		yaml_document_t d;
		if (!yaml_parser_load(&p, &d)) {
			printf("%s:%zu:%zu: %s%s%s\n", file, p.problem_mark.line + 1, p.problem_mark.column + 1,
			       p.problem ? p.problem : "parse error", p.context ? " " : "", p.context ? p.context : "");
			rc = 1;
			break;
		}
		yaml_node_t *root = yaml_document_get_root_node(&d);
		if (!root) {
			yaml_document_delete(&d);
			break;
		}
		if (lint && lint_node(&d, root))
			rc = 1;
		if (first && !lint) {
			*doc = d;
			first = 0;
			break;
		}
		yaml_document_delete(&d);
		if (rc)
			break;
	}
	yaml_parser_delete(&p);
	if (!lint && first) {
		printf("%s: no YAML document\n", file);
		return 1;
	}
	return rc;
}

/* Aliases: the loaded tree shares the node silently, the events show it. */
static int lint_aliases(const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev))
			break; /* load() reported it */
		yaml_event_type_t t = ev.type;
		if (t == YAML_ALIAS_EVENT) {
			printf("%s:%zu:%zu: an alias (*%s): write the value out\n", file, ev.start_mark.line + 1,
			       ev.start_mark.column + 1, (const char *)ev.data.alias.anchor);
			rc = 1;
		}
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT || rc)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

static yaml_node_t *walk(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = yaml_document_get_root_node(d);
	char *copy = strdup(path), *save = NULL;
	for (char *part = strtok_r(copy, ".", &save); n && part; part = strtok_r(NULL, ".", &save)) {
		yaml_node_t *next = NULL;
		if (n->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !next; p++) {
				yaml_node_t *k = yaml_document_get_node(d, p->key);
				if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, part))
					next = yaml_document_get_node(d, p->value);
			}
		} else if (n->type == YAML_SEQUENCE_NODE) {
			char *end;
			long i = strtol(part, &end, 10);
			long count = n->data.sequence.items.top - n->data.sequence.items.start;
			if (!*end && i >= 0 && i < count)
				next = yaml_document_get_node(d, n->data.sequence.items.start[i]);
		}
		n = next;
	}
	free(copy);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "lint") && argc != 4)) {
		fprintf(stderr, "usage: ciyaml lint FILE | get|len|keys FILE PATH\n");
		return 2;
	}
	file = argv[2];
	size_t len;
	char *text = slurp(file, &len);
	yaml_document_t doc;
	int rc;
	if (!strcmp(argv[1], "lint")) {
		rc = load(text, len, &doc, 1) || lint_aliases(text, len) || lint_tabs(text);
		free(text);
		return rc;
	}
	if (load(text, len, &doc, 0)) {
		free(text);
		return 1;
	}
	yaml_node_t *n = walk(&doc, argv[3]);
	rc = 0;
	if (!n) {
		rc = 1;
	} else if (!strcmp(argv[1], "get")) {
		if (n->type == YAML_SCALAR_NODE)
			fwrite(n->data.scalar.value, 1, n->data.scalar.length, stdout), putchar('\n');
		else
			rc = 1;
	} else if (!strcmp(argv[1], "len")) {
		if (n->type == YAML_SEQUENCE_NODE)
			printf("%ld\n", (long)(n->data.sequence.items.top - n->data.sequence.items.start));
		else if (n->type == YAML_MAPPING_NODE)
			printf("%ld\n", (long)(n->data.mapping.pairs.top - n->data.mapping.pairs.start));
		else
			rc = 1;
	} else if (!strcmp(argv[1], "keys") && n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			if (k->type == YAML_SCALAR_NODE)
				printf("%s\n", (const char *)k->data.scalar.value);
		}
	} else {
		rc = 1;
	}
	yaml_document_delete(&doc);
	free(text);
	if (fflush(stdout) != 0)
		return 2;
	return rc;
}
