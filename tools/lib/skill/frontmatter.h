/* frontmatter.h — strict YAML for SKILL.md frontmatter, with libyaml.
 * The subset is what the reference validator's parser (strictyaml) takes:
 * block mappings and sequences whose scalars are all strings (no null, bool
 * or number typing: `version: 1.0` is the string "1.0", an empty value is
 * ""), and no flow collections ([a], {a: b}: parsed, but reported), duplicate
 * keys, anchors, aliases, tags, non-string keys or second documents. */
#ifndef SKILLC_SKILL_FRONTMATTER_H
#define SKILLC_SKILL_FRONTMATTER_H

#include <stdbool.h>
#include <stddef.h>

enum fm_kind { FM_SCALAR, FM_MAP, FM_SEQ };

enum fm_style { FM_PLAIN, FM_SINGLE, FM_DOUBLE, FM_LITERAL, FM_FOLDED };

struct fm_node;
struct fm_pair {
	struct fm_node *key, *val;
};

struct fm_node {
	enum fm_kind kind;
	int line, col;          /* 1-based, in the file */
	char *str;              /* FM_SCALAR: the value, NUL-terminated (NULs are refused) */
	size_t len;
	enum fm_style style;
	struct fm_pair *pairs;  /* FM_MAP, in document order */
	struct fm_node **items; /* FM_SEQ */
	size_t n, cap;
};

/* A parse failure: position in the file, what is wrong, and for common
 * mistakes a corrected line to suggest (else fix is ""). */
struct fm_error {
	int line, col;
	char msg[512];
	char fix[512];
};

/* Parses the YAML text (len bytes) that starts in the file at line0:col0.
 * On success returns 0 and *root (NULL when the text holds no document,
 * e.g. only comments). Returns 1 with *root when the text parses but holds
 * a flow collection, which strictyaml refuses and every agent's YAML loader
 * reads: fe says where (SkillsBench ships such skills; the validator reports
 * it as an error, ingest takes the skill with a warning). On failure
 * returns -1 with fe filled in. The caller frees *root with fm_free. */
int fm_parse(const char *text, size_t len, int line0, int col0, struct fm_node **root,
	     struct fm_error *fe);
void fm_free(struct fm_node *n);

/* The value of key in a mapping, or NULL (also when map is not a mapping). */
const struct fm_node *fm_get(const struct fm_node *map, const char *key);

/* True when a plain scalar would be typed as null, boolean, number or date
 * by a YAML 1.1/1.2 loader (PyYAML, js-yaml, ...); *what names the type. */
bool fm_implicit_type(const struct fm_node *n, const char **what);

#endif
