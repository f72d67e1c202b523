# SPDX-License-Identifier: GPL-2.0
# CPU-bound Perl for the cross-check: hashes, regular expressions, sorting
# with a comparison block, string eval and recursion, until SECONDS (the
# first argument, default 1.5) of user CPU time have passed. Uses no
# modules: the guest has perl without its library.
my $secs = shift // 1.5;
my (%seen, @words, $sum);

sub fib { my $n = shift; return $n < 2 ? $n : fib($n - 1) + fib($n - 2) }

while ((times)[0] < $secs) {
	for my $i (1 .. 1000) {
		my $s = sprintf("w%05d-%x-%s", $i * 7919 % 10007, $i, "ab" x ($i % 5));
		$seen{$s}++;
		push @words, scalar reverse $s if $s =~ /^w(\d)\d*[13579]-(?:[0-9a-f]+)-(ab)*$/;
	}
	my @sorted = sort { lc($a) cmp lc($b) or $a cmp $b } @words;
	my $joined = join(",", @sorted[0 .. ($#sorted < 300 ? $#sorted : 300)]);
	(my $t = $joined) =~ s/([a-f])(\d)/$2$1/g;
	$sum += length($t) + fib(12);
	my $code = eval "sub { my \$x = shift; return \$x * 3 + " . ($sum % 97) . " }";
	$sum += $code->(7);
	if (keys %seen > 20000) {
		%seen = ();
		@words = ();
	}
}
print "$sum\n";
