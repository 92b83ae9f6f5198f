package metrics

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxScrapesInFlight bounds concurrent scrapes of one handler; more get 503.
const maxScrapesInFlight = 8

// Handler serves the metrics gathered from reg in the Prometheus exposition
// formats. Errors gathering (an invalid metric, a failing collector) are
// logged through slog.Default() at error level and the metrics that could be
// gathered are still served. reg must not be nil.
func Handler(reg prometheus.Gatherer) http.Handler {
	return handlerFor(reg, slog.Default())
}

func handlerFor(reg prometheus.Gatherer, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelError),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: maxScrapesInFlight,
	})
}

// indexPage is what GET / returns.
const indexPage = `<!DOCTYPE html>
<html>
<head><title>hados metrics</title></head>
<body>
<h1>hados metrics</h1>
<p><a href="/metrics">/metrics</a>: Prometheus metrics of the hados devices, memory pools and DMA engines.</p>
</body>
</html>
`

// newMux routes GET /metrics to the metrics handler and GET / to the index
// page; every other path is 404.
func newMux(reg prometheus.Gatherer, log *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", handlerFor(reg, log))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(indexPage))
	})
	return mux
}
