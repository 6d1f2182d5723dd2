# shellcheck shell=bash disable=SC2154 # set by the config and MMTests
run_bench() {
	"$SHELLPACK_INCLUDE"/shellpack-bench-idle_reentry				\
		${IPISTORM_VERSION:+-v "$IPISTORM_VERSION"}			\
		${IDLE_REENTRY_PAIR_CLASS:+--pair-class "$IDLE_REENTRY_PAIR_CLASS"}	\
		${IDLE_REENTRY_PARAMS:+--params "$IDLE_REENTRY_PARAMS"}		\
		--iterations	"$IDLE_REENTRY_ITERATIONS"			\
		--warmup	"$IDLE_REENTRY_WARMUP"				\
		--storm		"$IDLE_REENTRY_STORM"
	return $?
}
