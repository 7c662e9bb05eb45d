# The Lodestar server image. Build from the repository root after `mvn -B -DskipTests package`:
#
#   docker build -t lodestar .
#   docker build --build-arg BASE_IMAGE=my-registry/jre17 -t lodestar .
#
# BASE_IMAGE is any Java 17+ runtime image with `java` on PATH and a POSIX /bin/sh, mkdir,
# chown and chmod (it-tests/CONTAINERS.md shows how to make one without a registry). The Dockerfile uses
# no BuildKit-only syntax, so the classic builder (and Testcontainers) can build it too.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}

# Data (Raft log, snapshots, RocksDB) lives in /var/lib/lodestar, owned by an unprivileged user.
# Owner-only (0700): the server would tighten it at its first start otherwise, and log so.
RUN mkdir -p /opt/lodestar && mkdir -p -m 700 /var/lib/lodestar && chown 10001:10001 /var/lib/lodestar

COPY console-api/target/lodestar.jar /opt/lodestar/lodestar.jar
COPY console-api/docker/entrypoint.sh /opt/lodestar/entrypoint.sh
# The settings file a server reads by default, beside its jar: all commented out as shipped. Mount
# another over it, or name one with LODESTAR_CONFIG or --config (docs/operations.md).
COPY conf/lodestar.properties /opt/lodestar/conf/lodestar.properties

# Heap for the server JVM; RocksDB's block cache and JRaft's buffers live outside it, so give the
# container about twice this (see it-tests/CONTAINERS.md and docs/operations.md). The serial
# collector gives freed heap back at each full collection; two malloc arenas bound the native side.
ENV JAVA_OPTS="-Xmx256m -XX:+UseSerialGC -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30" MALLOC_ARENA_MAX=2
# The classes a server loads, recorded once here from a self-test run (a throwaway node on free
# loopback ports, deleted afterwards) into a class-data-sharing archive that every start maps
# instead of loading and verifying them from the jar: start to readiness about halves. On a base
# whose JDK has no CDS archive of its own nothing is recorded, and the server starts as before.
# The self-test sets its own umask to 077 like any server, so the archive is written owner-only
# for root: chmod makes it readable by the server's user, which would otherwise start without it.
RUN java $JAVA_OPTS -Xlog:disable -Xlog:all=warning:stderr -XX:ArchiveClassesAtExit=/opt/lodestar/lodestar.jsa \
        -jar /opt/lodestar/lodestar.jar self-test > /dev/null \
    && if [ -f /opt/lodestar/lodestar.jsa ]; then chmod 0444 /opt/lodestar/lodestar.jsa; fi

USER 10001:10001
WORKDIR /var/lib/lodestar
VOLUME /var/lib/lodestar
# HTTP (Nacos Open API, push channel), Raft.
EXPOSE 8848 9848 7848

ENTRYPOINT ["/bin/sh", "/opt/lodestar/entrypoint.sh"]
# No default arguments: a flag would beat the settings file and LODESTAR_* variables. Client
# authentication is on by default all the same.
CMD []
