# bench/lib.sh — what more than one bench script does (sourced, sh).

# corpus_packages CORPUS DEST: every skill folder of CORPUS (each folder
# holding a SKILL.md) copied into a numbered folder of its own, DEST/1/,
# DEST/2/, ... in sorted path order, so skills of one name stay apart.
corpus_packages() {
	n=0
	find "$1" -name SKILL.md | sort | while read -r f; do
		n=$((n + 1))
		mkdir -p "$2/$n"
		cp -R "$(dirname "$f")" "$2/$n/"
	done
}
