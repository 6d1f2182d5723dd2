# shellcheck shell=bash disable=SC2154 # set by the config and MMTests
run_bench() {
	"$SHELLPACK_INCLUDE"/shellpack-bench-nohz_csd				\
		${IPISTORM_VERSION:+-v "$IPISTORM_VERSION"}			\
		${NOHZ_CSD_PARAMS:+--params "$NOHZ_CSD_PARAMS"}			\
		--iterations	"$NOHZ_CSD_ITERATIONS"				\
		--warmup	"$NOHZ_CSD_WARMUP"				\
		--duration	"$NOHZ_CSD_DURATION"
	return $?
}
