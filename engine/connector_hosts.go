package engine

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/weirdb/weir/internal/pgerr"
)

// This file limits where connectors may make the server connect to. A
// source or sink names its brokers, and the server dials them: without
// a limit any client allowed to create one could reach any host and port
// the server can (and learn from the errors what answers there). An
// operator sets Config.AllowedConnectorHosts (weir serve
// --allowed-connector-hosts); superusers alone may create connectors in
// any case (privileges.go).

// checkConnectorHosts returns 42501 when a broker address is not allowed
// by the engine's AllowedConnectorHosts. An entry is a host (any port)
// or host:port; an empty list allows every host.
func (e *Engine) checkConnectorHosts(brokers []string) error {
	allowed := e.cfg.AllowedConnectorHosts
	if len(allowed) == 0 {
		return nil
	}
	for _, b := range brokers {
		host, _, err := net.SplitHostPort(b)
		if err != nil {
			host = b
		}
		ok := false
		for _, a := range allowed {
			if strings.EqualFold(a, b) || strings.EqualFold(a, host) {
				ok = true
				break
			}
		}
		if !ok {
			return pgerr.New(pgerr.InsufficientPrivilege, "connections to %s are not allowed", b).
				WithDetail("The server allows connectors to reach only %s.", strings.Join(allowed, ", ")).
				WithHint("An operator can allow it with weir serve --allowed-connector-hosts.")
		}
	}
	return nil
}

// brokerError describes why a broker check failed without repeating
// what the other side sent: a network failure is reported as the
// network reports it, a Kafka error by its name, and anything else (a
// server speaking another protocol, whose bytes the Kafka client would
// misread as lengths and codes) as not being a Kafka broker.
func brokerError(err error) string {
	var oe *net.OpError
	var ke *kerr.Error
	switch {
	case errors.As(err, &oe):
		return oe.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within " + brokerPingTimeout.String()
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &ke):
		return ke.Message
	}
	return "the server there does not answer as a Kafka broker"
}

// readerError is the text of a source reader's error: the error itself,
// unless the Kafka client read another protocol's bytes as a response
// length (it then prints them as a number), which is reported as not
// being a Kafka broker instead.
func readerError(err error) string {
	var oe *net.OpError
	var ke *kerr.Error
	if errors.As(err, &oe) || errors.As(err, &ke) || !strings.Contains(err.Error(), "invalid large response size") {
		return err.Error()
	}
	return "the server at the bootstrap address does not answer as a Kafka broker"
}
