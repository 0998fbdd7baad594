/* skillc-hash — content hashes of files and trees (XXH3-128, hex).
 * A file hashes as its bytes (the digits `xxhsum -H3` prints); a directory
 * as its sorted tree (see hash.h). With --stamp, the hash goes into a stamp
 * file that is rewritten only when it changed, so make rebuilds downstream
 * targets only for new content. */
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-hash PATH...            print \"<hash>  <path>\" for each\n"
	"       skillc-hash --stamp FILE PATH  write PATH's hash to FILE if it changed\n"
	"\n"
	"Hashes are XXH3-128 in hex. A directory hashes its sorted relative paths,\n"
	"kinds, executable bits and contents; symlinks hash as links, never followed.\n"
	"Exit 0 done, 2 a path cannot be read.\n";

int main(int argc, char **argv)
{
	log_init(argv[0]);
	const char *stamp = NULL;
	const struct opt rows[] = {
		OPT_STRING("stamp", &stamp, "FILE", "write PATH's hash to FILE if it changed"),
		OPT_END,
	};
	opts_std(argc, argv, usage, rows, V_HASH);
	struct strlist paths;
	opts_args_or_die(rows, argc, argv, 1, &paths);
	struct err e = { 0 };
	hash_hex h;
	if (stamp && paths.n != 1)
		die(2, "--stamp needs FILE and one PATH (see --help)");
	if (!paths.n)
		die(2, "nothing to hash (see --help)");
	for (size_t i = 0; i < paths.n; i++) {
		if (hash_tree(paths.v[i], h, &e) < 0)
			die_err(&e);
		if (stamp && stamp_write(stamp, h, &e) < 0)
			die_err(&e);
		if (!stamp)
			printf("%s  %s\n", h, paths.v[i]);
	}
	strlist_free(&paths);
	return 0;
}
