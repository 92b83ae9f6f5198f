// Package hados is the runtime: it reads the configuration (keys
// spark.hados.*, a properties file, environment variables), opens the
// configured devices through their drivers, and gives each device a memory
// pool and a DMA engine. Later layers execute query stages on it; package
// metrics reads its snapshots; the CLI and the C ABI bridge open it.
//
// # Lifetime
//
// A process opens one Runtime (a Spark executor does so when its plugin is
// initialised) and closes it at shutdown. Close stops the DMA engines,
// returns all device memory and closes the devices; pools that still hold
// buffers are reported as leaks in Close's error.
//
// # Configuration
//
// Every key has a default; ConfigKeys documents them all (and
// docs/configuration.md lists them). An unknown spark.hados.* key or a bad
// value is an error naming the key, the file and the line.
package hados
