import { PLATFORM_PROCESSES, platformEnvironment } from '../src/processes';

describe('platform process list', () => {
  it('starts the gateway after every service it calls', () => {
    expect(PLATFORM_PROCESSES.map((p) => p.name).at(-1)).toBe('gateway');
    expect(PLATFORM_PROCESSES.map((p) => p.name)).toContain('identity');
  });

  it('gives every process the port and the address of every service', () => {
    const env = platformEnvironment({ IDENTITY_GRPC_PORT: '6001', PORT: '9000' });
    expect(env).toMatchObject({
      IDENTITY_GRPC_PORT: '6001',
      IDENTITY_GRPC_URL: '127.0.0.1:6001',
      CATALOG_GRPC_PORT: '50052',
      CATALOG_GRPC_URL: '127.0.0.1:50052',
      PORT: '9000',
    });
  });

  it('keeps an address the caller set', () => {
    expect(platformEnvironment({ IDENTITY_GRPC_URL: 'dns:///identity:50051' }).IDENTITY_GRPC_URL).toBe(
      'dns:///identity:50051',
    );
  });
});
