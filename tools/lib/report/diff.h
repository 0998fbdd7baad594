/* diff.h — how a skill changed between two stages, as HTML for the report.
 *
 * SKILL.md is compared section by section (skill/skilldoc.h: sections
 * matched by their stable ids; a section's own text is its heading and the
 * body before its first subsection): unchanged sections are named in one
 * line, changed ones get a line diff (removed lines marked <del>, added
 * <ins>, two lines of context), added and removed sections are marked, a
 * section that keeps its id but changes its place among the others is
 * shown as moved, and a removed section whose heading reappears in a file
 * the new version added (static's "move to references/") is shown as moved
 * there. The frontmatter gets a line diff when it changed. Every other
 * file is listed as added, removed or changed (text files with their line
 * diff, folded in <details>). All text is escaped (report/html.h). */
#ifndef SKILLC_REPORT_DIFF_H
#define SKILLC_REPORT_DIFF_H

#include <stddef.h>

#include "base/util.h"

struct diff_counts {
	long sections_changed, sections_added, sections_removed, sections_moved, files_changed;
	long lines_added, lines_removed;
};

/* Appends the change from the skills under old_root to those under
 * new_root (skills roots, e.g. inputs/skill and artifacts/static/S_static):
 * one skill's change as above, or for a set of several, skill by skill
 * (a heading each changed skill, the byte-identical ones named in one
 * line). Roots that hold different skill folders are said in one line. */
void diff_skill_html(struct buf *b, const char *old_root, const char *new_root, struct diff_counts *n);

/* The line diff of two texts (at most `context` unchanged lines around a
 * change), as <pre class="diff">; adds its counts to *added, *removed. */
void diff_lines_html(struct buf *b, const char *a, size_t alen, const char *c, size_t clen, int context,
		     long *added, long *removed);

#endif
