import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/**
 * Development and test certificates for gRPC mutual TLS (docs/decisions.md, "Internal
 * authentication"): one CA and one certificate per service, naming the service in its CN and
 * DNS name and valid for 127.0.0.1 and localhost, so that a process can both serve and call.
 * Kept apart from the platform index: only the runner and the test platform load it.
 */

/**
 * @peculiar/x509, loaded when certificates are made: about 0.2 s of CPU that every test suite
 * would otherwise pay for the file paths alone (serviceTlsFiles).
 */
function loadX509(): typeof X509 {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, see above */
  // @peculiar/x509 resolves its services through tsyringe, which needs the Reflect polyfill first.
  require('reflect-metadata');
  const x509 = require('@peculiar/x509') as typeof X509;
  /* eslint-enable @typescript-eslint/no-require-imports */
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  return x509;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const VALIDITY_DAYS = 365;

export interface ServiceTlsFiles {
  GRPC_TLS_CA_FILE: string;
  GRPC_TLS_CERT_FILE: string;
  GRPC_TLS_KEY_FILE: string;
}

/** The three variables of a service whose certificates are in `dir`. */
export function serviceTlsFiles(dir: string, service: string): ServiceTlsFiles {
  return {
    GRPC_TLS_CA_FILE: join(dir, 'ca.pem'),
    GRPC_TLS_CERT_FILE: join(dir, `${service}.pem`),
    GRPC_TLS_KEY_FILE: join(dir, `${service}-key.pem`),
  };
}

/** Writes a new CA and a certificate for every service into `dir`, replacing what was there. */
export async function createDevelopmentCertificates(dir: string, services: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const x509 = loadX509();
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + VALIDITY_DAYS * 86_400_000);
  const caKeys = await generateKeys();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: 'CN=subscription billing platform development CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  await writeFile(join(dir, 'ca.pem'), ca.toString('pem'));
  for (const service of services) {
    const keys = await generateKeys();
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: `CN=${service}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingKey: caKeys.privateKey,
      publicKey: keys.publicKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([
          { type: 'dns', value: service },
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    const files = serviceTlsFiles(dir, service);
    const privateKey = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
    await writeFile(files.GRPC_TLS_CERT_FILE, certificate.toString('pem'));
    await writeFile(files.GRPC_TLS_KEY_FILE, x509.PemConverter.encode(privateKey, 'PRIVATE KEY'), { mode: 0o600 });
  }
}

/** Creates the certificates in `dir` unless every service already has its files there. */
export async function ensureDevelopmentCertificates(dir: string, services: readonly string[]): Promise<void> {
  const complete = services.every((service) => Object.values(serviceTlsFiles(dir, service)).every(existsSync));
  if (!complete) await createDevelopmentCertificates(dir, services);
}

function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

function serialNumber(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}
