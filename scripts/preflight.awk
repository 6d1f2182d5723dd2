# preflight.awk: preflight.sh's verdicts and their output (text, or JSON
# with json=1), from three files: the benchmarks ("NAME SCOPE..." a line:
# the scopes whose findings are NAME's), the checks ("NAME<TAB>VALUE") and
# the findings ("SCOPE<TAB>LEVEL<TAB>REASON"). Exit: 0 every benchmark
# valid, 3 one degraded and none invalid, 1 one invalid.

FILENAME == ARGV[1] {
	n = split($0, w, " ")
	bench[++nb] = w[1]
	for (i = 2; i <= n; i++) scope[w[1], w[i]] = 1
	next
}
FILENAME == ARGV[2] { cname[++nc] = $1; cval[nc] = $2; next }
{
	for (b = 1; b <= nb; b++) {
		if (!((bench[b], $1) in scope)) continue
		if ($2 == "note") note[b, ++nn[b]] = $3
		else {
			lvl[b, ++nw[b]] = $2; why[b, nw[b]] = $3
			if ($2 == "invalid") bad[b] = 1
		}
	}
}
function verdict(b) { return bad[b] ? "invalid" : nw[b] ? "degraded" : "valid" }
END {
	for (b = 1; b <= nb; b++) {
		v = verdict(b)
		if (v == "invalid") rc = 1
		else if (v == "degraded" && rc != 1) rc = 3
	}
	if (json) {
		printf "{\n  \"format\": %s,\n  \"kernel\": %s,\n  \"checks\": [", js(fmt), js(release)
		for (i = 1; i <= nc; i++)
			printf "%s\n    {\"name\": %s, \"value\": %s}", (i > 1 ? "," : ""), js(cname[i]), js(cval[i])
		printf "\n  ],\n  \"benchmarks\": ["
		for (b = 1; b <= nb; b++) {
			printf "%s\n    {\"name\": %s, \"verdict\": %s, \"reasons\": [", (b > 1 ? "," : ""), js(bench[b]), js(verdict(b))
			for (i = 1; i <= nw[b]; i++)
				printf "%s{\"level\": %s, \"text\": %s}", (i > 1 ? ", " : ""), js(lvl[b, i]), js(why[b, i])
			printf "], \"notes\": ["
			for (i = 1; i <= nn[b]; i++) printf "%s%s", (i > 1 ? ", " : ""), js(note[b, i])
			printf "]}"
		}
		printf "\n  ]\n}\n"
		exit rc + 0
	}
	printf "format=%s\n", fmt
	for (i = 1; i <= nc; i++) printf "%-20s %s\n", cname[i], cval[i]
	for (b = 1; b <= nb; b++) {
		printf "\n%s: %s\n", bench[b], verdict(b)
		for (i = 1; i <= nw[b]; i++) printf "  - %s: %s\n", lvl[b, i], why[b, i]
		for (i = 1; i <= nn[b]; i++) printf "  note: %s\n", note[b, i]
	}
	exit rc + 0
}
