# sbgo's container image: the static binary alone, on an empty base.
# The pods of `sbgo kube` run it (docs/distributed.md):
#
#   docker build -t sbgo:0.1.0 .
#
# The binary needs no libc (CGO_ENABLED=0: the SQLite driver is pure Go),
# no shell and no files of the image: scripts come in a ConfigMap, the
# results go to the log. CA certificates are copied for servers whose
# TLS certificate is checked against the system's authorities
# (--mysql-ssl=verify_identity, --pgsql-sslmode=verify-full).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/sbgo ./cmd/sbgo

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/sbgo /sbgo
USER 65532:65532
ENTRYPOINT ["/sbgo"]
