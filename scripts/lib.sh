# Shared by the setup scripts (sourced, not run).
#
# DELTALITE_CACHE holds downloads and builds that outlive a clone, so that a
# second clone (or a wiped .cache) sets up without the network: pip wheels,
# the npm cache, the Ivy cache of Spark's Delta jars, the versitygw binary.
# Default: ~/.cache/deltalite (or $XDG_CACHE_HOME/deltalite).
DELTALITE_CACHE="${DELTALITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/deltalite}"
export DELTALITE_CACHE

# seconds since the epoch, with a fraction
now() { date +%s.%N; }

# elapsed time since $1 (from now), as 12.3s
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# copy_tree SRC DST: copies the files of SRC into DST (creating it) without
# replacing newer ones; a missing SRC is nothing to copy.
copy_tree() {
	[[ -d "$1" ]] || return 0
	mkdir -p "$2"
	cp -a -u "$1/." "$2/"
}
