/* skilldoc.h — the skill document model (docs/internals/document-model.md).
 *
 * A SKILL.md is kept as its original bytes plus an index over them:
 *   - the frontmatter span (a first line "---", up to a line "---"),
 *   - the body as a list of blocks that tile it exactly (blank runs, headings,
 *     paragraphs, list items, fenced and indented code, tables, quotes, HTML,
 *     thematic breaks),
 *   - sections: a tree built from the headings, each with a stable id,
 *   - code blocks (also those nested in list items), inline elements (code
 *     spans, links, images, autolinks, bare URLs, link definitions),
 *   - file references (paths into the skill folder),
 *   - protected literals: text an editor must carry over byte for byte.
 * Offsets are byte offsets into doc->src; lines and columns are 1-based
 * (columns count code points) and are only for messages.
 *
 * The model is never modified in place. An edit is a list of splices over
 * the original bytes (struct sd_edits); sd_apply renders the edited bytes
 * (every byte outside a splice is copied unchanged) and sd_edit parses them
 * into a new model. Rendering with no edits (sd_render) reproduces the input
 * byte for byte: it concatenates the frontmatter and every block.
 *
 * Markdown recognized is CommonMark's block structure without nesting
 * (list items and quotes are single blocks) plus GFM tables:
 *   - ATX headings (up to 3 spaces, 1-6 '#', then space or end) and setext
 *     headings (a top-level paragraph underlined with === or ---);
 *   - fences of ``` or ~~~ (length >= 3, info string, up to 3 spaces of
 *     indentation, any indentation inside a list item), closed by the same
 *     character at least as long, or running to the end of the file;
 *   - indented code (4+ columns, not inside a paragraph or list item).
 * Nothing inside a code block is a heading, link or reference.
 *
 * Section ids: "<slug path>#<ordinal>". The slug of a heading is its text
 * with link targets and HTML tags dropped, ASCII letters lowercased, letters
 * and digits (any script, Python's isalnum) kept, every other run of
 * characters turned into one '-', '-' trimmed from both ends, cut to at
 * most 48 bytes (at a '-' when the cut falls inside a word); an empty slug
 * is "section". The slug path joins the slugs of the
 * enclosing headings with '/' (a heading's parent is the nearest earlier
 * heading of a lower level). The ordinal counts sections with the same slug
 * path in document order, from 1. Example: "## Step 2: Run `x`" under
 * "# Workflow" is "workflow/step-2-run-x#1". The root section (the whole
 * body) has the id "". Ids survive edits elsewhere in the document; they
 * change only when a heading on the path is renamed or a section with the
 * same slug path is inserted before it. */
#ifndef SKILLC_SKILL_SKILLDOC_H
#define SKILLC_SKILL_SKILLDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "base/util.h"

struct sd_span {
	size_t off, len;
};

enum sd_block_kind {
	SD_BLANK,          /* one or more blank lines */
	SD_HEADING,        /* ATX or setext heading */
	SD_PARAGRAPH,
	SD_LIST_ITEM,      /* one list item (marker at <= 3 spaces) with its continuation lines */
	SD_FENCE,          /* fenced code block */
	SD_INDENTED_CODE,
	SD_TABLE,          /* GFM table: header, delimiter row, rows */
	SD_QUOTE,          /* block quote */
	SD_HTML,           /* HTML block */
	SD_RULE,           /* thematic break */
};

struct sd_block {
	enum sd_block_kind kind;
	size_t off, len;     /* whole lines, including the last line's newline */
	int line;            /* line of the first byte */
	int level;           /* SD_HEADING: 1..6 */
	bool setext;         /* SD_HEADING: underlined */
	struct sd_span text; /* SD_HEADING: text without markers; SD_FENCE: content lines */
	int section;         /* innermost section holding the block */
};

/* A code block: every SD_FENCE and SD_INDENTED_CODE block, and fences
 * nested inside list items. */
struct sd_code {
	size_t off, len;        /* the whole fence including its fence lines */
	struct sd_span content; /* lines between the fence lines */
	struct sd_span info;    /* info string (e.g. "bash"), may be empty */
	char fence_char;        /* '`', '~', or 0 for indented code */
	int fence_len;
	bool closed;            /* false: ran to the end of the file */
	int block;              /* the block holding it */
};

enum sd_inline_kind {
	SD_CODE_SPAN,  /* `code` */
	SD_LINK,       /* [text](dest) */
	SD_IMAGE,      /* ![alt](dest) */
	SD_AUTOLINK,   /* <https://...> */
	SD_BARE_URL,   /* https://... in text */
	SD_LINK_DEF,   /* [label]: dest */
};

struct sd_inline {
	enum sd_inline_kind kind;
	size_t off, len;     /* the whole element */
	struct sd_span text; /* code span content, link text, image alt */
	struct sd_span dest; /* link, image, definition or URL target */
	int block;
};

enum sd_ref_origin {
	SD_REF_LINK,  /* a link, image or definition target */
	SD_REF_CODE,  /* inside a code span */
	SD_REF_TEXT,  /* in running text */
	SD_REF_BLOCK, /* inside a code block (e.g. "python scripts/x.py") */
};

/* A file reference: a relative path that points into the skill folder (or
 * tries to leave it). Link targets count when relative; in code and text,
 * only tokens whose first directory is a usual skill folder (scripts,
 * references, reference, assets, templates, examples, resources), optionally
 * after "./", "{baseDir}/" or "$..SKILL..DIR/", and "../"-paths ending in a
 * file name with an extension (not inside code blocks). */
struct sd_ref {
	char *path;           /* as written, without #fragment / ?query, %XX decoded */
	size_t off, len;      /* where the path is written */
	int line, col;
	enum sd_ref_origin origin;
	int block;
};

enum sd_lit_kind {
	SD_LIT_CODE_BLOCK,  /* a whole fenced or indented code block */
	SD_LIT_CODE_SPAN,   /* a whole `code span` */
	SD_LIT_URL,
	SD_LIT_PATH,        /* a/b.c, ./x, /abs/x, ~/x, name.ext (common extensions) */
	SD_LIT_FLAG,        /* --flag, --flag=value, -x */
	SD_LIT_NUMBER,      /* a number with a unit (900 s, 16 GB, 50%) or a decimal (0.25) */
	SD_LIT_PLACEHOLDER, /* {{NAME}}, ${NAME} */
	SD_LIT_ENV,         /* $NAME */
};

/* Protected literals are sorted by offset and never overlap. */
struct sd_literal {
	enum sd_lit_kind kind;
	size_t off, len;
};

struct sd_section {
	char *id;            /* "workflow/step-2#1"; "" for the root */
	char *path;          /* the slug path, "workflow/step-2" */
	char *slug;
	int level;           /* 0 for the root, else the heading level */
	int heading;         /* block index of the heading, -1 for the root */
	int parent;          /* -1 for the root */
	size_t off;          /* start of the heading line (root: body start) */
	size_t content_off;  /* just after the heading block */
	size_t own_end;      /* where the first subsection starts, else end */
	size_t end;          /* start of the next heading of the same or higher rank, or EOF */
	size_t trim_end;     /* end without trailing blank lines */
	size_t block, block_end; /* its blocks [block, block_end) (from the heading on) */
};

struct skilldoc {
	char *src;               /* owned copy of the bytes, NUL-terminated */
	size_t len;
	bool has_frontmatter;
	bool fm_unclosed;        /* starts with "---" but no closing line */
	struct sd_span fm;       /* the frontmatter including both "---" lines */
	struct sd_span fm_yaml;  /* the YAML between them */
	size_t body;             /* offset where the body starts */

	struct sd_block *blocks;
	size_t nblocks;
	struct sd_section *sections; /* [0] is the root; document order */
	size_t nsections;
	struct sd_code *codes;
	size_t ncodes;
	struct sd_inline *inlines;   /* document order */
	size_t ninlines;
	struct sd_ref *refs;         /* document order */
	size_t nrefs;
	struct sd_literal *literals;
	size_t nliterals;

	size_t *line_starts;     /* offsets of every line start */
	size_t nlines;

	struct strmap section_ids; /* id -> section index (sd_section_find) */
	unsigned users;            /* holders of the model: sd_share adds one, sd_free drops one */
};

/* Parses bytes (any bytes; not required to be UTF-8 but columns assume it)
 * in time linear in len (n log n where it sorts). Never fails. The caller
 * frees the result with sd_free. */
struct skilldoc *sd_parse(const char *bytes, size_t len);
/* One more holder of d (a model never changes once parsed, so a tool
 * parses a document once and passes the model around); returns d. */
struct skilldoc *sd_share(const struct skilldoc *d);
/* Drops one holder; the last one frees the model. */
void sd_free(struct skilldoc *d);

/* Appends the document, assembled from its frontmatter and blocks. */
void sd_render(const struct skilldoc *d, struct buf *out);

/* Line and column (1-based; columns in code points) of a byte offset. */
void sd_line_col(const struct skilldoc *d, size_t off, int *line, int *col);

/* Section lookup by id; "a/b" means "a/b#1". Returns its index or -1. */
int sd_section_find(const struct skilldoc *d, const char *id);
/* The section's bytes [off, end) appended to out. */
void sd_section_text(const struct skilldoc *d, int section, struct buf *out);

/* Body line count and the token estimate used by lint: ASCII bytes / 4
 * (rounded up) plus one token per non-ASCII code point. */
size_t sd_body_lines(const struct skilldoc *d);
size_t sd_estimate_tokens(const char *s, size_t len);

const char *sd_block_kind_name(enum sd_block_kind k);
const char *sd_lit_kind_name(enum sd_lit_kind k);
const char *sd_ref_origin_name(enum sd_ref_origin o);

/* ---- Edits ------------------------------------------------------------
 * A list of splices over the ORIGINAL offsets of one document. Splices may
 * not overlap (inserts at the same offset keep their order and go before a
 * splice that starts there). */
struct sd_splice {
	size_t off, len;  /* the original bytes replaced */
	char *text;       /* owned replacement */
	size_t tlen;
	size_t seq;
};
struct sd_edits {
	struct sd_splice *v;
	size_t n, cap;
};
#define SD_EDITS_INIT { NULL, 0, 0 }

void sd_edits_replace(struct sd_edits *ed, size_t off, size_t len, const char *text, size_t n);
void sd_edits_insert(struct sd_edits *ed, size_t off, const char *text, size_t n);
void sd_edits_delete(struct sd_edits *ed, size_t off, size_t len);
void sd_edits_free(struct sd_edits *ed);

/* Replace one block (e.g. a paragraph) with text; keep a final newline in
 * text when the block had one. */
void sd_edit_replace_block(struct sd_edits *ed, const struct skilldoc *d, int block,
			   const char *text, size_t n);
/* Replace a section (heading and all its subsections) with text, or remove it. */
void sd_edit_replace_section(struct sd_edits *ed, const struct skilldoc *d, int section,
			     const char *text, size_t n);
void sd_edit_remove_section(struct sd_edits *ed, const struct skilldoc *d, int section);
/* Moves a section (with its subsections) to dest, an offset of the original
 * document outside the section, e.g. another section's off or end. A final
 * newline is supplied when the section ends the file without one.
 * Returns -1 with e set when dest lies inside the section. */
int sd_edit_move_section(struct sd_edits *ed, const struct skilldoc *d, int section,
			 size_t dest, struct err *e);

/* Renders d with the edits applied into out. -1 with e set (ERR_INPUT) when
 * splices overlap or leave the document. */
int sd_apply(const struct skilldoc *d, const struct sd_edits *ed, struct buf *out, struct err *e);
/* sd_apply, then sd_parse of the result: the edited copy. d is unchanged.
 * NULL with e set on failure; the caller frees the result with sd_free. */
struct skilldoc *sd_edit(const struct skilldoc *d, const struct sd_edits *ed, struct err *e);

#endif
