//! Buckets of objects, where attributes too large for a DynamoDB item go
//! ([`crate::large`]). Kura's layout: a bucket is a directory under a root by default
//! ([`DirectoryStore`], the same layout as `kura serve --buckets-dir`), or a bucket on S3
//! or an S3-compatible server ([`S3Store`], feature `s3`). Anything else implements
//! [`ObjectStore`].

use std::future::Future;
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;

use crate::error::{CqrsError, Result};

/// A future an [`ObjectStore`] returns.
pub type ObjectFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// A store of buckets.
pub trait ObjectStore: Send + Sync + std::fmt::Debug + 'static {
    /// Writes `key` in `bucket`, replacing what was there.
    fn put<'a>(&'a self, bucket: &'a str, key: &'a str, body: Vec<u8>) -> ObjectFuture<'a, ()>;
    /// Reads `key` of `bucket`.
    fn get<'a>(&'a self, bucket: &'a str, key: &'a str) -> ObjectFuture<'a, Vec<u8>>;
}

/// An object's location as rows refer to it: `s3://bucket/key`, whatever the store.
pub fn location(bucket: &str, key: &str) -> String {
    format!("s3://{bucket}/{key}")
}

/// The bucket and key of a location (`None` for any other text).
pub fn parse_location(text: &str) -> Option<(&str, &str)> {
    text.strip_prefix("s3://")
        .and_then(|rest| rest.split_once('/'))
        .filter(|(bucket, key)| !bucket.is_empty() && !key.is_empty())
}

fn object_error(bucket: &str, key: &str, message: impl std::fmt::Display) -> CqrsError {
    CqrsError::Object {
        location: location(bucket, key),
        message: message.to_string(),
    }
}

/// Buckets as directories under a root: bucket `b`, key `k/l` is the file `root/b/k/l`.
/// A write goes to a temporary file renamed into place, so a reader never sees half an
/// object.
#[derive(Debug, Clone)]
pub struct DirectoryStore {
    root: PathBuf,
}

impl DirectoryStore {
    pub fn new(root: impl Into<PathBuf>) -> DirectoryStore {
        DirectoryStore { root: root.into() }
    }

    /// The file of `key` in `bucket`; a bucket or key that would leave the root is
    /// refused.
    fn path(&self, bucket: &str, key: &str) -> Result<PathBuf> {
        let plain = |text: &str| {
            !text.is_empty()
                && Path::new(text)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
        };
        if !plain(bucket) || bucket.contains('/') || !plain(key) {
            return Err(object_error(bucket, key, "not a valid bucket or key here"));
        }
        Ok(self.root.join(bucket).join(key))
    }
}

impl ObjectStore for DirectoryStore {
    fn put<'a>(&'a self, bucket: &'a str, key: &'a str, body: Vec<u8>) -> ObjectFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(bucket, key)?;
            let dir = path.parent().unwrap_or(&self.root).to_owned();
            let fail = |e: std::io::Error| object_error(bucket, key, e);
            tokio::fs::create_dir_all(&dir).await.map_err(fail)?;
            let temp = dir.join(format!(".{}.part", ulid::Ulid::new()));
            tokio::fs::write(&temp, body).await.map_err(fail)?;
            if let Err(e) = tokio::fs::rename(&temp, &path).await {
                let _cleanup = tokio::fs::remove_file(&temp).await;
                return Err(fail(e));
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, bucket: &'a str, key: &'a str) -> ObjectFuture<'a, Vec<u8>> {
        Box::pin(async move {
            let path = self.path(bucket, key)?;
            tokio::fs::read(&path)
                .await
                .map_err(|e| object_error(bucket, key, e))
        })
    }
}

#[cfg(feature = "s3")]
pub use s3::S3Store;

#[cfg(feature = "s3")]
mod s3 {
    use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata};
    use aws_sdk_s3::primitives::ByteStream;

    use super::{ObjectFuture, ObjectStore, object_error};

    /// Buckets on S3 or an S3-compatible server, through a client configured by the
    /// caller (region, credentials, endpoint, path-style addressing).
    #[derive(Debug, Clone)]
    pub struct S3Store {
        client: aws_sdk_s3::Client,
    }

    impl S3Store {
        pub fn new(client: aws_sdk_s3::Client) -> S3Store {
            S3Store { client }
        }
    }

    fn reason<E: ProvideErrorMetadata + std::error::Error + 'static>(
        e: &aws_sdk_s3::error::SdkError<E>,
    ) -> String {
        match e.as_service_error().and_then(|s| s.code()) {
            Some(code) => format!(
                "S3 {code}: {}",
                e.as_service_error()
                    .and_then(|s| s.message())
                    .unwrap_or(code)
            ),
            None => DisplayErrorContext(e).to_string(),
        }
    }

    impl ObjectStore for S3Store {
        fn put<'a>(&'a self, bucket: &'a str, key: &'a str, body: Vec<u8>) -> ObjectFuture<'a, ()> {
            Box::pin(async move {
                self.client
                    .put_object()
                    .bucket(bucket)
                    .key(key)
                    .content_type("application/json")
                    .body(ByteStream::from(body))
                    .send()
                    .await
                    .map(drop)
                    .map_err(|e| object_error(bucket, key, reason(&e)))
            })
        }

        fn get<'a>(&'a self, bucket: &'a str, key: &'a str) -> ObjectFuture<'a, Vec<u8>> {
            Box::pin(async move {
                let out = self
                    .client
                    .get_object()
                    .bucket(bucket)
                    .key(key)
                    .send()
                    .await
                    .map_err(|e| object_error(bucket, key, reason(&e)))?;
                let body = out
                    .body
                    .collect()
                    .await
                    .map_err(|e| object_error(bucket, key, e))?;
                Ok(body.into_bytes().to_vec())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_recognised() {
        assert_eq!(
            parse_location(&location("bucket", "module/01.json")),
            Some(("bucket", "module/01.json"))
        );
        for not in [
            "s3://bucket",
            "s3:///key",
            "https://bucket/key",
            "s3://bucket/",
        ] {
            assert_eq!(parse_location(not), None, "{not}");
        }
    }

    #[test]
    fn a_directory_store_keeps_to_its_root() {
        let store = DirectoryStore::new("/tmp/root");
        for (bucket, key) in [
            ("..", "k"),
            ("b", "../k"),
            ("b/c", "k"),
            ("b", "/k"),
            ("", "k"),
        ] {
            assert!(store.path(bucket, key).is_err(), "{bucket} {key}");
        }
        assert!(store.path("b", "t/k.json").is_ok());
    }
}
