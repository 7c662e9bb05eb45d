#!/bin/sh
# Entrypoint of the Lodestar image: runs `lodestar server` with the container's arguments.
#
# --host is both where the node binds and how it names itself in --peers, so inside a container
# it must be an address the other members reach: unless the arguments give --host, it is
# $LODESTAR_HOST if set, else this container's own IP address (from /etc/hosts, where Docker maps
# the container's hostname to it). --data-dir defaults to /var/lib/lodestar (the image's volume).
# Only POSIX sh built-ins are used: the image may have no other tools.
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

if ! has_option --host "$@"; then
    host="${LODESTAR_HOST:-}"
    if [ -z "$host" ]; then
        host="$(own_address)"
    fi
    set -- --host "$host" "$@"
fi
if ! has_option --data-dir "$@"; then
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
