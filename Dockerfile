# mcp-bridge in a small image: a static binary (no cgo) on distroless.
#   docker build -t mcp-bridge --build-arg VERSION=$(git describe --tags --always) .
#   docker run -p 7300:7300 -e MCP_TOKEN=... mcp-bridge
# deploy/compose.yaml runs two of them in a cluster on NATS (docs/cluster.md).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG REVISION=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
      -o /out/mcp-bridge ./cmd/mcp-bridge

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mcp-bridge /usr/local/bin/mcp-bridge
COPY deploy/bridge.yaml /etc/mcp-bridge/bridge.yaml
USER nonroot:nonroot
# 7300: agents (/ws, /v1), MCP clients (/mcp), /metrics, /healthz, /readyz.
EXPOSE 7300
ENTRYPOINT ["/usr/local/bin/mcp-bridge"]
CMD ["serve", "--config", "/etc/mcp-bridge/bridge.yaml"]
