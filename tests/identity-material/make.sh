#!/bin/sh
# Makes the keys and certificates of this folder (run once; the files are committed as data).
# Every certificate is valid from 2023-01-01 to 2033-01-01, a window that holds the golden
# instant (SOURCE_DATE_EPOCH=1700000000, 2023-11-14T22:13:20Z) and today's clock.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=20230101000000Z
end=20330101000000Z

# sign CSR CA_CRT CA_KEY OUT CN EXTENSIONS (digest: $MD, default sha256)
sign() {
  mkdir -p "$work/db"; : > "$work/db/index"; echo 1000 > "$work/db/serial"
  cat > "$work/ca.cnf" <<CNF
[ca]
default_ca = this
[this]
database = $work/db/index
serial = $work/db/serial
new_certs_dir = $work/db
default_md = ${MD:-sha256}
policy = any
unique_subject = no
copy_extensions = none
[any]
commonName = supplied
[root]
basicConstraints = critical, CA:TRUE, pathlen:1
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[issuer]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
  if [ "$2" = self ]; then self=-selfsign; cacert=; else self=; cacert="-cert $2"; fi
  # shellcheck disable=SC2086
  openssl ca -batch -config "$work/ca.cnf" -notext -in "$1" $self $cacert -keyfile "$3" \
    -out "$4" -subj "/CN=$5" -extensions "$6" -startdate $start -enddate $end 2>/dev/null
}

root() { # NAME CN
  openssl ecparam -name prime256v1 -genkey -noout -out "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$work/$1.csr"
  sign "$work/$1.csr" self "$1.key" "$1.crt" "$2" root
}

root ca root.linkerd.cluster.local
root other-ca root.linkerd.cluster.local

# The issuer's key in PKCS#8 (BEGIN PRIVATE KEY), as `openssl genpkey` and cert-manager write it.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out issuer-pkcs8.key
openssl req -new -key issuer-pkcs8.key -subj "/CN=identity.linkerd.cluster.local" -out "$work/i.csr"
sign "$work/i.csr" ca.crt ca.key issuer.crt identity.linkerd.cluster.local issuer

# The same name and profile, signed by another CA that happens to have the trust anchor's name.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out issuer-other-ca.key
openssl req -new -key issuer-other-ca.key -subj "/CN=identity.linkerd.cluster.local" -out "$work/o.csr"
sign "$work/o.csr" other-ca.crt other-ca.key issuer-other-ca.crt identity.linkerd.cluster.local issuer

# An RSA issuer (PKCS#1 key): its key reads and matches, but linkerd's issuer must be ECDSA.
openssl genrsa -traditional -out issuer-rsa.key 2048 2>/dev/null
openssl req -new -key issuer-rsa.key -subj "/CN=identity.linkerd.cluster.local" -out "$work/r.csr"
sign "$work/r.csr" ca.crt ca.key issuer-rsa.crt identity.linkerd.cluster.local issuer

# The PKCS#8 issuer's key signed again by the trust anchor, with ecdsa-with-SHA384.
MD=sha384 sign "$work/i.csr" ca.crt ca.key issuer-sha384.crt identity.linkerd.cluster.local issuer
