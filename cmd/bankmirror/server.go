package main

import (
	"time"
)

// shutdownGrace is how long the simulator's and the dashboard's servers wait
// for requests in flight when they stop, before they cut the connections
// still open (a sender retries what it got no answer for). The daemon's
// listeners take their share of its stop budget (internal/daemon).
const shutdownGrace = 5 * time.Second
