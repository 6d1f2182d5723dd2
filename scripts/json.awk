# json.awk: JSON quoting for the suite's awk programs, loaded before them
# with -f.
#
#   js(s)  s as a JSON string: quotes, backslashes and control characters
#          escaped, character by character (gsub's treatment of
#          backslashes in the replacement differs between awks)

function js(s,    o, i, c) {
	if (!("\"" in JESC)) {
		for (i = 1; i < 32; i++) JESC[sprintf("%c", i)] = sprintf("\\u%04x", i)
		JESC[sprintf("%c", 127)] = "\\u007f"
		JESC["\t"] = "\\t"; JESC["\n"] = "\\n"; JESC["\r"] = "\\r"
		JESC["\\"] = "\\\\"; JESC["\""] = "\\\""
	}
	o = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		o = o ((c in JESC) ? JESC[c] : c)
	}
	return "\"" o "\""
}
