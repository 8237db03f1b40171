//! Standard base64 (RFC 4648, with padding), as fsbox sends bytes fields, and the serde adapters
//! the generated types name with `#[serde(with = "crate::base64")]`. Hand-written to keep the
//! crate's dependencies to serde and serde_json; a malformed string fails decoding with the
//! offending position rather than yielding partial bytes.

use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes bytes as standard base64 with padding.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 with padding; anything else is an error naming the position.
pub fn decode(s: &str) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(format!("base64: length {} is not a multiple of 4", bytes.len()));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (q, quad) in bytes.chunks(4).enumerate() {
        let last = (q + 1) * 4 == bytes.len();
        let mut n: u32 = 0;
        let mut pad = 0;
        for (i, &c) in quad.iter().enumerate() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if last && (i == 3 || (i == 2 && quad[3] == b'=')) => {
                    pad += 1;
                    0
                }
                _ => return Err(format!("base64: invalid byte at {}", q * 4 + i)),
            };
            if pad > 0 && c != b'=' {
                return Err(format!("base64: data after padding at {}", q * 4 + i));
            }
            n = (n << 6) | u32::from(v);
        }
        out.push((n >> 16) as u8);
        if pad < 2 {
            out.push((n >> 8) as u8);
        }
        if pad < 1 {
            out.push(n as u8);
        }
    }
    Ok(out)
}

/// serde adapter for a required bytes field.
pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&encode(data))
}

/// serde adapter for a required bytes field.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    decode(&String::deserialize(d)?).map_err(D::Error::custom)
}

/// serde adapters for an optional bytes field.
pub mod option {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    /// Encodes Some(bytes) as base64; None is skipped by the field's skip_serializing_if.
    pub fn serialize<S: Serializer>(data: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match data {
            Some(d) => s.serialize_str(&super::encode(d)),
            None => s.serialize_none(),
        }
    }

    /// Decodes a base64 string (or null) into Some(bytes) (or None).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(s) => super::decode(&s).map(Some).map_err(D::Error::custom),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_padding() {
        for data in [&b""[..], b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar", &[0, 255, 128, 7]] {
            let s = encode(data);
            assert_eq!(decode(&s).unwrap(), data, "{s}");
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fo"), "Zm8=");
    }

    #[test]
    fn refuses_malformed() {
        for bad in ["Zm9", "Zm9v!mFy", "Z=9v", "Zm==Zm9v", "=m9v"] {
            assert!(decode(bad).is_err(), "{bad} decoded");
        }
    }
}
