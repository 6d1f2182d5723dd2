# shellcheck shell=bash
# Helpers of common/tests/*.bats, which take common/ code out of its files
# as it is and compile it in userspace: loaded with `load extract`.

# extract FILE NAME: the definition of the function NAME in FILE, from the
# line that names it to the closing brace at column 0.
extract() {
	awk -v f="$2" '$0 ~ "[ *]" f "\\(" && !/;$/ { on = 1 }
		on { print } on && /^}/ { exit }' "$1"
}

# extract_struct FILE NAME: the definition of struct NAME in FILE.
extract_struct() {
	awk -v s="$2" '$0 ~ "^struct " s " \\{" { on = 1 }
		on { print } on && /^};/ { exit }' "$1"
}

# extract_define FILE NAME: the #define of NAME in FILE.
extract_define() {
	grep -E "^#define[[:space:]]+$2[[:space:]]" "$1"
}
