# Count call chains in `perf script -F comm,tid,ip,sym,dso` output.
#
#   awk -f chains.awk -v comm=demo -v chain=c,b,a,main script.txt
#
# A sample is a header line ("comm tid") followed by one line per frame
# ("<tab>addr sym (dso)") and a blank line. Kernel frames are skipped: the
# "leaf" is the innermost user frame. Prints key=value lines:
#   samples    samples of COMM
#   leaf       samples whose leaf is the first symbol of CHAIN
#   full       of those, samples whose user frames start with all of CHAIN
#   leafonly   samples with a single user frame (nothing unwound)
#   top        the most frequent user chain (up to 6 frames, ';' separated)
BEGIN {
	n = split(chain, want, ",")
	samples = leaf = full = leafonly = 0
}
function flush(   i, ok, key) {
	if (!insample) return
	insample = 0
	if (scomm != comm) return
	samples++
	if (nf == 1) leafonly++
	key = ""
	for (i = 1; i <= nf && i <= 6; i++) key = key (i > 1 ? ";" : "") f[i]
	seen[key]++
	if (nf < 1 || f[1] != want[1]) return
	leaf++
	ok = (nf >= n)
	for (i = 1; ok && i <= n; i++) if (f[i] != want[i]) ok = 0
	if (ok) full++
}
/^[ \t]*$/ { flush(); next }
/^[^ \t]/ { flush(); insample = 1; scomm = $1; nf = 0; next }
{
	# frame line: addr sym... (dso)
	if (!insample) next
	dso = $NF
	if (dso == "([kernel.kallsyms])" || dso ~ /^\(\[kernel/ || $1 ~ /^ffff/) next
	sym = $2
	for (i = 3; i < NF; i++) sym = sym " " $i
	sub(/\+0x[0-9a-f]+$/, "", sym)
	f[++nf] = sym
}
END {
	flush()
	best = ""; bestn = 0
	for (k in seen) if (seen[k] > bestn) { bestn = seen[k]; best = k }
	print "samples=" samples
	print "leaf=" leaf
	print "full=" full
	print "leafonly=" leafonly
	print "top=" bestn " " best
}
