# Shared by the fetch scripts (sourced, not run): checks a folder against pinned SHA-256s.
# The sourcing script defines FILES ("relative/path:sha256" entries) and log().

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Succeeds when every file in FILES is in folder $1 with its pinned hash.
# With a second argument "report" it names each file that is missing or differs.
check_folder() {
    local folder="$1" report="${2:-}" ok=0 entry name want got
    for entry in "${FILES[@]}"; do
        name="${entry%%:*}"
        want="${entry#*:}"
        if [ ! -f "$folder/$name" ]; then
            [ -n "$report" ] && log "missing: $folder/$name"
            ok=1
            continue
        fi
        got="$(sha256_of "$folder/$name")"
        if [ "$got" != "$want" ]; then
            [ -n "$report" ] && log "SHA-256 mismatch for $name: expected $want, got $got"
            ok=1
        fi
    done
    return $ok
}
