# The servers' own latency histograms from their /metrics text, for scripts/loadrun.sh and
# .ci/container.sh: sourced, not run.
#
#   histogram < METRICS            `metric le count` lines: the buckets of each histogram named
#                                  in $histograms, summed over their labels (action types,
#                                  modes) and over every instance's text given; none before any
#                                  sample
#   histogram_shares BEFORE AFTER  the difference of two such files, per histogram: each
#                                  bucket's share of the samples and its count

# SENET_HISTOGRAM names others, space-separated (e.g. senet_seek_post_seconds for the lobby).
histograms=${SENET_HISTOGRAM:-senet_action_latency_seconds senet_db_append_seconds}

histogram() {
    awk -F'[{}]' -v names="$histograms" '
        BEGIN { split(names, list, " "); for (i in list) wanted[list[i] "_bucket"] = list[i] }
        $1 in wanted {
            match($2, /le="[^"]*"/)
            key = wanted[$1] " " substr($2, RSTART + 4, RLENGTH - 5)
            split($3, v, " ")
            n[key] += v[1]
            if (!(key in seen)) { seen[key] = 1; order[++k] = key }
        }
        END { for (i = 1; i <= k; i++) print order[i], n[order[i]] }'
}

histogram_shares() {
    # The last bucket of each histogram (+Inf) is its number of samples.
    awk 'FILENAME == ARGV[1] { before[$1 " " $2] = $3; next }
        { m[++k] = $1; le[k] = $2; d[k] = $3 - before[$1 " " $2]; total[$1] = d[k] }
        END {
            for (i = 1; i <= k; i++) {
                if (m[i] != m[i - 1]) printf "  %s\n", m[i]
                printf "    le %s s: %.2f%% (%d)\n", le[i], total[m[i]] ? 100 * d[i] / total[m[i]] : 0, d[i]
            }
        }' "$1" "$2"
}
