#!/usr/bin/perl
# compare-diff-mmtests.pl: MMTests' own figures of the differential test's
# -m mmtests cases (compare-diff.sh runs it, compare-diff.R reads them).
#
#   perl compare-diff-mmtests.pl SNAPSHOT DIR
#
# For each case DIR/SEED whose args say mmtests, writes DIR/SEED/mmtests:
# per metric the baseline's and the new side's mean and stddev as
# compare-kernels.sh summarises them (calc_amean or, higher is better,
# calc_hmean, and calc_stddev of SNAPSHOT/bin/lib/MMTests/Stat.pm), and
# the interval ratio of cidiff() called as _generateComparisonTable() in
# Compare.pm calls it, on the intervals mean +- z * stddev (z from args,
# R's qnorm(1 - alpha/2), which _calc_meanci() asks R for). Where MMTests'
# harmonic mean is NaN (a run 0 or less) compare.sh compares the
# arithmetic mean and stddev instead, and so does this reference.
use strict;
use warnings;

my ($snap, $dir) = @ARGV;
die "usage: $0 SNAPSHOT DIR\n" unless defined $dir && -d "$snap/bin/lib/MMTests";
unshift @INC, "$snap/bin/lib";
require MMTests::Stat;
MMTests::Stat->import();

my %dirn = ('runtime_ns' => 'lower', 'total.poll_pct' => 'higher');

sub values_of {
	my ($d, $key) = @_;
	my @v;
	for my $f (sort glob("$d/iter-*.txt")) {
		open(my $fh, '<', $f) or die "$f: $!\n";
		while (<$fh>) {
			chomp;
			push @v, $1 if /^\Q$key\E=(.*)$/;
		}
		close $fh;
	}
	return @v;
}

sub nan { my $x = shift; return $x eq "NaN" || $x != $x }
# calc_hmean() divides "NaN" by a zero sum when the first run is 0 or
# less (perl dies: Illegal division by zero): NaN too
sub hmean_nan { my $x = eval { calc_hmean(shift) }; return !defined $x || nan($x) }

sub constant { my $x = shift; for (@_) { return 0 if $_ != $x } return 1 }

opendir(my $dh, $dir) or die "$dir: $!\n";
for my $seed (sort grep { /^[0-9]+$/ } readdir $dh) {
	my $c = "$dir/$seed";
	open(my $fh, '<', "$c/args") or die "$c/args: $!\n";
	my ($rule, $alpha, $z) = split ' ', <$fh>;
	close $fh;
	next unless $rule eq 'mmtests';
	open(my $out, '>', "$c/mmtests") or die "$c/mmtests: $!\n";
	print $out "metric base_mean base_sd new_mean new_sd ratio\n";
	for my $m (sort keys %dirn) {
		my @a = values_of("$c/base", $m);
		my @b = values_of("$c/new", $m);
		my $name = $dirn{$m} eq 'higher' ? 'hmean' : 'amean';
		$name = 'amean' if hmean_nan(\@a) || hmean_nan(\@b);
		my ($ma, $mb) = (MMTests::Stat::_calc_mean($name, \@a), MMTests::Stat::_calc_mean($name, \@b));
		my ($sa, $sb) = (calc_stddev($name, \@a), calc_stddev($name, \@b));
		# a constant sample has no spread; MMTests' sums leave a rounding
		# residue there (and its interval ratio divides by it), where
		# cidiff() means to compare the raw difference
		$sa = 0 if constant(@a);
		$sb = 0 if constant(@b);
		my $ratio = cidiff($ma, [$ma - $z * $sa, $ma + $z * $sa], $mb, [$mb - $z * $sb, $mb + $z * $sb]);
		printf $out "%s %.17g %.17g %.17g %.17g %.17g\n", $m, $ma, $sa, $mb, $sb, $ratio;
	}
	close $out;
}
