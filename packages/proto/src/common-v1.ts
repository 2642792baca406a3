// common.v1 spans several proto files; each generated file also exports `protobufPackage`, so the
// messages of the later ones are named here one by one.
export * from './gen/common/v1/scope';
export { PostalAddress } from './gen/common/v1/address';
export { Seller } from './gen/common/v1/seller';
