package wire

import (
	"crypto/tls"
	"fmt"
)

// TLSInfo is what PostgreSQL's pg_stat_ssl shows of a connection that
// upgraded to TLS, in the names OpenSSL gives, as PostgreSQL (built on
// OpenSSL) shows them.
type TLSInfo struct {
	// Version is the protocol version as OpenSSL's SSL_get_version
	// names it: TLSv1.2, TLSv1.3.
	Version string
	// Cipher is the cipher suite as OpenSSL names it: for TLS 1.3 the
	// IANA name (TLS_AES_256_GCM_SHA384), for earlier versions
	// OpenSSL's own (ECDHE-RSA-AES256-GCM-SHA384).
	Cipher string
	// Bits is the cipher's strength in bits, as OpenSSL's
	// SSL_get_cipher_bits gives it (256 for AES-256 and ChaCha20, 112
	// for triple DES).
	Bits int
}

// tlsVersionNames are OpenSSL's names of the TLS versions.
var tlsVersionNames = map[uint16]string{
	tls.VersionTLS10: "TLSv1",
	tls.VersionTLS11: "TLSv1.1",
	tls.VersionTLS12: "TLSv1.2",
	tls.VersionTLS13: "TLSv1.3",
}

// cipherSuite is a cipher suite's OpenSSL name and strength in bits.
type cipherSuite struct {
	name string
	bits int
}

// cipherSuites are the suites crypto/tls implements (tls.CipherSuites
// and tls.InsecureCipherSuites), by id, with OpenSSL's names (openssl
// ciphers -stdname) and strength bits.
var cipherSuites = map[uint16]cipherSuite{
	tls.TLS_AES_128_GCM_SHA256:       {"TLS_AES_128_GCM_SHA256", 128},
	tls.TLS_AES_256_GCM_SHA384:       {"TLS_AES_256_GCM_SHA384", 256},
	tls.TLS_CHACHA20_POLY1305_SHA256: {"TLS_CHACHA20_POLY1305_SHA256", 256},

	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA:          {"ECDHE-ECDSA-AES128-SHA", 128},
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA:          {"ECDHE-ECDSA-AES256-SHA", 256},
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA:            {"ECDHE-RSA-AES128-SHA", 128},
	tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA:            {"ECDHE-RSA-AES256-SHA", 256},
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:       {"ECDHE-ECDSA-AES128-GCM-SHA256", 128},
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:       {"ECDHE-ECDSA-AES256-GCM-SHA384", 256},
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:         {"ECDHE-RSA-AES128-GCM-SHA256", 128},
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:         {"ECDHE-RSA-AES256-GCM-SHA384", 256},
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:   {"ECDHE-RSA-CHACHA20-POLY1305", 256},
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: {"ECDHE-ECDSA-CHACHA20-POLY1305", 256},
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256:       {"ECDHE-ECDSA-AES128-SHA256", 128},
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256:         {"ECDHE-RSA-AES128-SHA256", 128},
	tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA:              {"ECDHE-ECDSA-RC4-SHA", 128},
	tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA:                {"ECDHE-RSA-RC4-SHA", 128},
	tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA:           {"ECDHE-RSA-DES-CBC3-SHA", 112},

	tls.TLS_RSA_WITH_AES_128_CBC_SHA:    {"AES128-SHA", 128},
	tls.TLS_RSA_WITH_AES_256_CBC_SHA:    {"AES256-SHA", 256},
	tls.TLS_RSA_WITH_AES_128_CBC_SHA256: {"AES128-SHA256", 128},
	tls.TLS_RSA_WITH_AES_128_GCM_SHA256: {"AES128-GCM-SHA256", 128},
	tls.TLS_RSA_WITH_AES_256_GCM_SHA384: {"AES256-GCM-SHA384", 256},
	tls.TLS_RSA_WITH_RC4_128_SHA:        {"RC4-SHA", 128},
	tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA:   {"DES-CBC3-SHA", 112},
}

// tlsInfo is what pg_stat_ssl shows of a connection in the TLS state
// st. A suite or version crypto/tls adds later than this file keeps
// crypto/tls's name (and 0 bits) until it is added here.
func tlsInfo(st tls.ConnectionState) *TLSInfo {
	v, ok := tlsVersionNames[st.Version]
	if !ok {
		v = fmt.Sprintf("0x%04X", st.Version)
	}
	cs, ok := cipherSuites[st.CipherSuite]
	if !ok {
		cs = cipherSuite{name: tls.CipherSuiteName(st.CipherSuite)}
	}
	return &TLSInfo{Version: v, Cipher: cs.name, Bits: cs.bits}
}
