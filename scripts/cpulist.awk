# cpulist.awk: the kernel's CPU lists ("0-3,8") in POSIX awk (busybox),
# for the scripts that read them from sysfs or parameters: functions
# only, loaded before a program (awk -f cpulist.awk -f PROG.awk, or its
# text before an inline program).

# cpulist_expand(LIST, SET): SET[c] = 1 for every CPU c of LIST (ranges
# "a-b" and single ids; anything else is skipped).
function cpulist_expand(list, set,    n, i, r, a, b) {
	n = split(list, r, ",")
	for (i = 1; i <= n; i++) {
		if (split(r[i], a, "-") == 2 && a[1] ~ /^[0-9]+$/ && a[2] ~ /^[0-9]+$/) {
			for (b = a[1] + 0; b <= a[2] + 0; b++) set[b] = 1
		} else if (r[i] ~ /^[0-9]+$/) set[r[i] + 0] = 1
	}
}

# cpulist_compress(SET): the CPUs SET holds (its indices) as a cpulist,
# ascending, runs as ranges; "" for none.
function cpulist_compress(set,    n, id, c, i, j, x, out, lo, hi) {
	n = 0
	for (c in set) id[++n] = c + 0
	# insertion sort: busybox awk has no asort
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && id[j - 1] > id[j]; j--) { x = id[j]; id[j] = id[j - 1]; id[j - 1] = x }
	out = ""
	for (i = 1; i <= n; i++) {
		if (i > 1 && id[i] == hi + 1) { hi = id[i]; continue }
		if (i > 1) out = out (out == "" ? "" : ",") (lo == hi ? lo : lo "-" hi)
		lo = hi = id[i]
	}
	if (n) out = out (out == "" ? "" : ",") (lo == hi ? lo : lo "-" hi)
	return out
}
