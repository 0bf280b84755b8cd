// Package listpack holds Redis 7.0.15's listpack format, once:
//   - entry sizing (listpack.c's lpEncodeGetType/lpEncodeBacklen
//     arithmetic, size.go): the stream node-full decision
//     (streamAppendItem), the RDB writer's quicklist and stream node
//     splitting and MEMORY USAGE all count listpack bytes with it, so they
//     agree with each other and with Redis;
//   - the encoder and the validating walk (codec.go), as lpAppend and
//     lpValidateIntegrity with deep checks: the RDB codec builds and reads
//     listpack blobs with them;
//   - the entry walk behind DEBUG LISTPACK and QUICKLIST (repr.go).
package listpack
