//! Reading a request body: DynamoDB's 16 MB limit on the declared length, on what arrives
//! (chunked or not) and on what a `Content-Encoding` inflates to, so no request costs more
//! memory than the limit, whatever it claims or compresses to.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use bytes::BytesMut;
use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use http_body_util::BodyExt;
use kura_model::limits::MAX_REQUEST_BODY_BYTES;
use kura_model::messages;
use std::io::Read;

use crate::body_limits::{self, HeldBytes};
use kura_api::error::ApiError;

/// The body of a request as sent (what a SigV4 signature covers), or the error to answer
/// with. A body that arrives too slowly or past the server's budget of request bytes is
/// cut by [`crate::body_limits`] on the way in, and answered as that limit says.
pub async fn read(
    headers: &HeaderMap,
    body: Body,
    held: Option<&HeldBytes>,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BODY_BYTES as u64) {
        return Err(ApiError::too_large());
    }
    // Frames are copied out as they arrive, so the connection's read buffer is not kept
    // alive by them, into pieces of at most 256 KB (few allocations, none doubling); the
    // pieces are joined once at the end.
    const PIECE: usize = 256 * 1024;
    let mut pieces: Vec<Bytes> = Vec::new();
    let mut current = BytesMut::new();
    let mut length = 0;
    let mut body = body;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| match body_limits::limit_error(&e) {
            Some(limit) => limit.same(),
            None => ApiError::serialization(messages::BODY_UNREADABLE),
        })?;
        let Some(mut data) = frame.data_ref().map(|d| &d[..]) else {
            continue;
        };
        length += data.len();
        if length > MAX_REQUEST_BODY_BYTES {
            return Err(ApiError::too_large());
        }
        while !data.is_empty() {
            if current.capacity() == current.len() {
                if !current.is_empty() {
                    pieces.push(std::mem::take(&mut current).freeze());
                }
                current.reserve(PIECE.min(declared.map_or(PIECE, |n| n as usize).max(1)));
            }
            let room = (current.capacity() - current.len()).min(data.len());
            current.extend_from_slice(&data[..room]);
            data = &data[room..];
        }
    }
    if !current.is_empty() {
        pieces.push(current.freeze());
    }
    join(pieces, length, held)
}

/// How many `Content-Encoding` layers are undone: each may inflate to the whole 16 MB, so
/// layers are counted (clients send one; two are tolerated).
const MAX_CONTENT_ENCODINGS: usize = 2;

/// Undoes the `Content-Encoding`s, last applied first; what they inflate to is taken from
/// the request's share of the budget (`held`) as it grows, when the request came over a
/// connection.
pub fn decode(
    headers: &HeaderMap,
    raw: Bytes,
    held: Option<&HeldBytes>,
) -> Result<Bytes, ApiError> {
    let mut encodings = Vec::new();
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let value = value
            .to_str()
            .map_err(|_| ApiError::serialization(messages::unsupported_encoding("(not ASCII)")))?;
        encodings.extend(
            value
                .split(',')
                .map(|e| e.trim().to_ascii_lowercase())
                .filter(|e| !e.is_empty() && e != "identity"),
        );
    }
    if encodings.len() > MAX_CONTENT_ENCODINGS {
        return Err(ApiError::serialization(messages::too_many_encodings(
            encodings.len(),
            MAX_CONTENT_ENCODINGS,
        )));
    }
    let mut body = raw;
    for encoding in encodings.iter().rev() {
        body = match encoding.as_str() {
            "gzip" | "x-gzip" => inflate(MultiGzDecoder::new(&body[..]), encoding, held)?,
            // HTTP's "deflate" is a zlib stream; some clients send raw deflate.
            "deflate" => inflate(ZlibDecoder::new(&body[..]), encoding, held)
                .or_else(|_| inflate(DeflateDecoder::new(&body[..]), encoding, held))?,
            other => {
                return Err(ApiError::serialization(messages::unsupported_encoding(
                    other,
                )));
            }
        };
    }
    Ok(body)
}

/// Reads at most one byte past the limit, so a small body that inflates hugely costs no
/// more than the limit, taking budget for each piece before it is kept; the pieces are
/// joined as [`read`] joins a body's frames.
fn inflate(
    mut decoder: impl Read,
    encoding: &str,
    held: Option<&HeldBytes>,
) -> Result<Bytes, ApiError> {
    const PIECE: usize = 64 * 1024;
    let mut pieces = Vec::new();
    let mut length = 0;
    loop {
        let mut piece = vec![0u8; PIECE];
        let n = decoder.read(&mut piece).map_err(|e| {
            ApiError::serialization(messages::malformed_encoding(encoding, &e.to_string()))
        })?;
        if n == 0 {
            return join(pieces, length, held);
        }
        length += n;
        if length > MAX_REQUEST_BODY_BYTES {
            return Err(ApiError::too_large());
        }
        if let Some(held) = held {
            held.take(n)?;
        }
        piece.truncate(n);
        pieces.push(Bytes::from(piece));
    }
}

/// One buffer of `length` bytes from `pieces`. Joining holds the bytes twice for a
/// moment: that moment is taken from the budget too.
fn join(
    mut pieces: Vec<Bytes>,
    length: usize,
    held: Option<&HeldBytes>,
) -> Result<Bytes, ApiError> {
    if pieces.len() <= 1 {
        return Ok(pieces.pop().unwrap_or_default());
    }
    if let Some(held) = held {
        held.take(length)?;
    }
    let mut joined = BytesMut::with_capacity(length);
    for piece in pieces {
        joined.extend_from_slice(&piece);
    }
    if let Some(held) = held {
        held.give_back(length);
    }
    Ok(joined.freeze())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use axum::http::HeaderValue;
    use flate2::Compression;
    use flate2::write::{GzEncoder, ZlibEncoder};

    use super::*;

    fn headers(encoding: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_str(encoding).unwrap(),
        );
        h
    }

    fn decode_all(headers: &HeaderMap, raw: Bytes) -> Result<Bytes, ApiError> {
        decode(headers, raw, None)
    }

    fn gzip(data: &[u8]) -> Bytes {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        Bytes::from(e.finish().unwrap())
    }

    #[test]
    fn gzip_and_deflate_are_undone() {
        let json = br#"{"TableName":"T"}"#;
        assert_eq!(&decode_all(&headers("gzip"), gzip(json)).unwrap()[..], json);
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(json).unwrap();
        let zlib = Bytes::from(z.finish().unwrap());
        assert_eq!(&decode_all(&headers("deflate"), zlib).unwrap()[..], json);
        let twice = gzip(&gzip(json));
        assert_eq!(
            &decode_all(&headers("gzip, gzip"), twice).unwrap()[..],
            json
        );
        let plain = Bytes::from_static(json);
        assert_eq!(
            &decode_all(&headers("identity"), plain.clone()).unwrap()[..],
            json
        );
        assert_eq!(&decode_all(&HeaderMap::new(), plain).unwrap()[..], json);
    }

    #[test]
    fn bad_encodings_are_refused() {
        let err = decode_all(&headers("br"), Bytes::from_static(b"x")).unwrap_err();
        assert_eq!(err.name(), "SerializationException");
        let err = decode_all(&headers("gzip"), Bytes::from_static(b"not gzip")).unwrap_err();
        assert_eq!(err.name(), "SerializationException");
        let thrice = gzip(&gzip(&gzip(b"{}")));
        let err = decode_all(&headers("gzip, gzip, gzip"), thrice).unwrap_err();
        assert_eq!(err.name(), "SerializationException");
        assert!(
            err.message
                .as_deref()
                .is_some_and(|m| m.contains("3 Content-Encodings")),
            "{err:?}"
        );
        let mut truncated = gzip(&[b'a'; 1000]).to_vec();
        truncated.truncate(truncated.len() / 2);
        let err = decode_all(&headers("gzip"), Bytes::from(truncated)).unwrap_err();
        assert_eq!(err.name(), "SerializationException");
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let bomb = gzip(&vec![0u8; MAX_REQUEST_BODY_BYTES + 10]);
        assert!(bomb.len() < 100_000, "zeros compress well");
        let err = decode_all(&headers("gzip"), bomb).unwrap_err();
        assert_eq!(err.status, axum::http::StatusCode::PAYLOAD_TOO_LARGE);
        let fits = gzip(&vec![b' '; MAX_REQUEST_BODY_BYTES]);
        assert_eq!(
            decode_all(&headers("gzip"), fits).unwrap().len(),
            MAX_REQUEST_BODY_BYTES
        );
    }
}
