# shellcheck shell=bash disable=SC2154 # set by the config and MMTests
run_bench() {
	"$SHELLPACK_INCLUDE"/shellpack-bench-ipistorm				\
		${IPISTORM_VERSION:+-v "$IPISTORM_VERSION"}			\
		${IPISTORM_PAIR_CLASS:+--pair-class "$IPISTORM_PAIR_CLASS"}	\
		--iterations	"$IPISTORM_ITERATIONS"				\
		--warmup	"$IPISTORM_WARMUP"				\
		--params	"$IPISTORM_PARAMS"
	return $?
}
