#!/bin/sh
# Entrypoint of the Lodestar image: runs `lodestar server` with the container's arguments.
#
# --host is both where the node binds and how it names itself in --peers, so inside a container
# it must be an address the other members reach: unless the arguments give --host, it is
# $LODESTAR_HOST if set, else this container's own IP address (from /etc/hosts, where Docker maps
# the container's hostname to it). --data-dir defaults to /var/lib/lodestar (the image's volume).
# Neither default is passed when the settings file or the environment (LODESTAR_DATA_DIR) sets it,
# since a flag would override them (docs/operations.md). Only POSIX sh built-ins are used: the
# image may have no other tools.
set -eu

# has_option NAME ARGS...: whether ARGS hold NAME (as "NAME value" or "NAME=value")
has_option() {
    name="$1"
    shift
    for arg in "$@"; do
        case "$arg" in
            "$name" | "$name"=*) return 0 ;;
        esac
    done
    return 1
}

own_address() {
    while read -r address names; do
        for name in $names; do
            if [ "$name" = "${HOSTNAME:-}" ]; then
                echo "$address"
                return 0
            fi
        done
    done < /etc/hosts
    echo "entrypoint: cannot find this container's address for '${HOSTNAME:-}' in /etc/hosts; pass --host" >&2
    return 1
}

# settings_file ARGS...: the file the server reads: --config, else $LODESTAR_CONFIG, else the image's
settings_file() {
    previous=""
    for arg in "$@"; do
        case "$arg" in
            --config=*) echo "${arg#--config=}"; return 0 ;;
        esac
        if [ "$previous" = --config ]; then
            echo "$arg"
            return 0
        fi
        previous="$arg"
    done
    echo "${LODESTAR_CONFIG:-/opt/lodestar/conf/lodestar.properties}"
}

# file_sets KEY FILE: whether FILE has a line setting KEY (comments start with # or !)
file_sets() {
    [ -r "$2" ] || return 1
    while read -r line || [ -n "$line" ]; do
        case "$line" in
            "$1"=* | "$1":* | "$1"" "* | "$1""	"*) return 0 ;;
        esac
    done < "$2"
    return 1
}

settings="$(settings_file "$@")"
if ! has_option --host "$@" && ! file_sets host "$settings"; then
    host="${LODESTAR_HOST:-}"
    if [ -z "$host" ]; then
        host="$(own_address)"
    fi
    set -- --host "$host" "$@"
fi
if ! has_option --data-dir "$@" && [ -z "${LODESTAR_DATA_DIR:-}" ] && ! file_sets data-dir "$settings"; then
    set -- --data-dir /var/lib/lodestar "$@"
fi

# Owner-only files for everything the server creates (its data dir holds the token key and the
# password hashes); the server sets this umask itself too, and this holds where the JVM cannot.
umask 077

# The image's class archive (see the Dockerfile; a missing one is ignored), JVM warnings on stderr.
# JAVA_OPTS comes after, so its flags win; it is split on spaces on purpose: it holds several flags.
# shellcheck disable=SC2086
exec java -XX:SharedArchiveFile=/opt/lodestar/lodestar.jsa -Xlog:disable -Xlog:all=warning:stderr ${JAVA_OPTS:-} \
    -jar /opt/lodestar/lodestar.jar server "$@"
