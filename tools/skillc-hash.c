/* skillc-hash — content hashes of files and trees (XXH3-128, hex).
 * A file hashes as its bytes (the digits `xxhsum -H3` prints); a directory
 * as its sorted tree (see hash.h). With --stamp, the hash goes into a stamp
 * file that is rewritten only when it changed, so make rebuilds downstream
 * targets only for new content. */
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
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
	std_options(argc, argv, usage, V_HASH);
	struct err e = { 0 };
	hash_hex h;
	if (argc >= 2 && !strcmp(argv[1], "--stamp")) {
		if (argc != 4)
			die(2, "--stamp needs FILE and PATH (see --help)");
		if (hash_tree(argv[3], h, &e) < 0)
			die_err(&e);
		int r = stamp_write(argv[2], h, &e);
		if (r < 0)
			die_err(&e);
		return 0;
	}
	if (argc < 2)
		die(2, "nothing to hash (see --help)");
	int i = argv[1][0] == '-' && !strcmp(argv[1], "--") ? 2 : 1;
	if (argv[i] && argv[i][0] == '-' && strcmp(argv[1], "--"))
		die(2, "unknown option '%s' (see --help)", argv[i]);
	for (; i < argc; i++) {
		if (hash_tree(argv[i], h, &e) < 0)
			die_err(&e);
		printf("%s  %s\n", h, argv[i]);
	}
	return 0;
}
