import { PLATFORM_PROCESSES, platformEnvironment, processEnvironment } from '@billing/testing';

describe('platform process list', () => {
  it('starts the gateway after every service it calls, and documents after billing', () => {
    const names = PLATFORM_PROCESSES.map((p) => p.name);
    expect(names.at(-1)).toBe('gateway');
    expect(names).toContain('identity');
    expect(names.indexOf('documents')).toBeGreaterThan(names.indexOf('billing'));
  });

  it('gives every process the port and the address of every service', () => {
    const env = platformEnvironment({ IDENTITY_GRPC_PORT: '6001', PORT: '9000' });
    expect(env).toMatchObject({
      IDENTITY_GRPC_PORT: '6001',
      IDENTITY_GRPC_URL: '127.0.0.1:6001',
      CATALOG_GRPC_PORT: '50052',
      CATALOG_GRPC_URL: '127.0.0.1:50052',
      // A gRPC service's second, HTTP port (the pages the gateway proxies) and its address.
      DOCUMENTS_GRPC_URL: '127.0.0.1:50056',
      DOCUMENTS_HTTP_PORT: '8083',
      DOCUMENTS_HTTP_URL: 'http://127.0.0.1:8083',
      PORT: '9000',
    });
  });

  it('keeps an address the caller set', () => {
    expect(platformEnvironment({ IDENTITY_GRPC_URL: 'dns:///identity:50051' }).IDENTITY_GRPC_URL).toBe(
      'dns:///identity:50051',
    );
  });

  it('gives every process a METRICS_PORT of its own, from <NAME>_METRICS_PORT', () => {
    const env = platformEnvironment({ SANDBOX_PROVIDER_METRICS_PORT: '7001' });
    const ports = PLATFORM_PROCESSES.map((spec) => processEnvironment(spec, env).METRICS_PORT);
    expect(new Set(ports).size).toBe(PLATFORM_PROCESSES.length);
    const sandbox = PLATFORM_PROCESSES.find((spec) => spec.name === 'sandbox-provider')!;
    expect(processEnvironment(sandbox, env).METRICS_PORT).toBe('7001');
    expect(processEnvironment(PLATFORM_PROCESSES.at(-1)!, env).METRICS_PORT).toBe('9470');
  });
});
