# The tsbucket command, for docker-compose.yml (service "demo").
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/tsbucket ./cmd/tsbucket

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tsbucket /usr/local/bin/tsbucket
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/tsbucket"]
CMD ["help"]
