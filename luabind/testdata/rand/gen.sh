#!/bin/sh
# Regenerates the reference figures in this directory with the real sysbench
# 1.0.20. sysbench's main thread starts from the same state on every run, so
# the output does not change between runs. Run from this directory.
set -eu
SYSBENCH=/usr/bin/sysbench

comment_file() { sed 's/^/#   /' "$1"; }

# hist NAME "ENV..." "OPTIONS..."
hist() {
	name=$1 env=$2 opts=$3
	cmd="env $env $SYSBENCH${opts:+ $opts} hist.lua"
	{
		echo "# Reference histogram from sysbench 1.0.20 ($SYSBENCH --version: $($SYSBENCH --version))."
		echo "# Produced by gen.sh in this directory with the command:"
		echo "#   $cmd"
		echo "# hist.lua (also in this directory):"
		comment_file hist.lua
		echo "# One bin count per line, bin 0 first."
		$cmd | sed -n 's/^bin //p'
	} >"$name.txt"
}

D="RAND_DRAWS=100000"
R="RAND_LO=1 RAND_HI=1000 RAND_BINS=20 $D"
hist uniform "RAND_FUNC=uniform $R" ""
hist gaussian "RAND_FUNC=gaussian $R" ""
hist special "RAND_FUNC=special $R" ""
hist pareto "RAND_FUNC=pareto $R" ""
for t in uniform gaussian special pareto; do
	hist "default_$t" "RAND_FUNC=default $R" "--rand-type=$t"
done
hist special_wide "RAND_FUNC=special RAND_LO=1 RAND_HI=100000 RAND_BINS=20 $D" ""
hist special_pct10_res50 "RAND_FUNC=special $R" "--rand-spec-pct=10 --rand-spec-res=50"
hist gaussian_iter3 "RAND_FUNC=gaussian $R" "--rand-spec-iter=3"
hist pareto_h05 "RAND_FUNC=pareto $R" "--rand-pareto-h=0.5"
hist uniform_double "RAND_FUNC=uniform_double RAND_BINS=20 $D" ""
hist string_digits "RAND_FUNC=string_digits RAND_BINS=10 $D" ""
hist string_letters "RAND_FUNC=string_letters RAND_BINS=26 $D" ""

# sequence NAME "OPTIONS..."
sequence() {
	name=$1 opts=$2
	cmd="$SYSBENCH${opts:+ $opts} sequence.lua"
	{
		echo "# The first values of sysbench 1.0.20's main-thread generator."
		echo "# Produced by gen.sh in this directory with the command:"
		echo "#   $cmd"
		echo "# sequence.lua (also in this directory):"
		comment_file sequence.lua
		echo "# One \"<call> <value>\" line per call, in call order."
		$cmd | grep -E '^[a-z_0-9]+\(.*\) '
	} >"$name.txt"
}
sequence sequence ""
sequence sequence_opts "--rand-type=gaussian --rand-spec-iter=3 --rand-spec-pct=10 --rand-spec-res=50 --rand-pareto-h=0.35"
