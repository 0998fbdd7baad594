/* frontmatter — strict YAML (libyaml under skills-ref's rules) on any
 * text: it parses to a tree or fails with a position inside the text. */
#include "fuzz.h"
#include "skill/frontmatter.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct fm_node *root = NULL;
	struct fm_error fe;
	if (fm_parse((const char *)data, size, 1, 1, &root, &fe) < 0) {
		FUZZ_CHECK(fe.line >= 1 && fe.col >= 1 && fe.msg[0]);
	} else if (root && root->kind == FM_MAP) {
		const char *what;
		for (size_t i = 0; i < root->n; i++)
			(void)fm_implicit_type(root->pairs[i].val, &what);
		(void)fm_get(root, "name");
	}
	fm_free(root);
	return 0;
}
