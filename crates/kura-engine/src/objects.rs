//! Buckets of objects: where exports go and imports come from.
//!
//! The engine never speaks S3. It writes and reads through [`Objects`], which the server
//! provides: by default [`LocalBuckets`], where a bucket is a directory under a root, and
//! with configuration a real S3 or S3-compatible server (the `kura` binary's `s3`
//! module). [`MemoryBuckets`] serves tests and `--in-memory`.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use parking_lot::Mutex;

/// Why an object operation failed: `code` is what DynamoDB reports as an export's or an
/// import's FailureCode (S3's error code with an `S3` prefix), `message` the detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectError {
    pub code: String,
    pub message: String,
}

impl ObjectError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        ObjectError {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    pub fn no_such_bucket(bucket: &str) -> Self {
        ObjectError::new(
            "S3NoSuchBucket",
            format!("The specified bucket does not exist: {bucket}"),
        )
    }

    /// An object over what the reader takes (`max` bytes): refused before it is read.
    pub fn too_large(key: &str, max: u64) -> Self {
        ObjectError::new(
            OBJECT_TOO_LARGE,
            format!("{key} is larger than {max} bytes"),
        )
    }

    /// More objects under a prefix than a reader takes (`max`).
    pub fn too_many(prefix: &str, max: usize) -> Self {
        ObjectError::new(
            TOO_MANY_OBJECTS,
            format!(
                "more than {max} objects under the prefix {prefix:?}; an import takes at most {max}"
            ),
        )
    }

    pub fn no_such_key(key: &str) -> Self {
        ObjectError::new(
            "S3NoSuchKey",
            format!("The specified key does not exist: {key}"),
        )
    }
}

impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// The code of [`ObjectError::too_large`].
pub const OBJECT_TOO_LARGE: &str = "ObjectTooLarge";
/// The code of [`ObjectError::too_many`].
pub const TOO_MANY_OBJECTS: &str = "TooManyObjects";

/// A store of buckets. Calls block; the engine makes them from its own threads.
pub trait Objects: Send + Sync + 'static {
    /// Writes `key` in `bucket`, replacing what was there.
    fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Result<(), ObjectError>;
    /// Reads `key` of `bucket`, refusing it unread when it holds more than `max` bytes.
    fn get(&self, bucket: &str, key: &str, max: u64) -> Result<Vec<u8>, ObjectError>;
    /// The keys of `bucket` that start with `prefix`, in byte order; more than `max` of
    /// them is [`ObjectError::too_many`], found without holding much more than `max`
    /// (`max + 1` locally; S3 answers a page of up to 1,000 keys at a time, so up to
    /// `max + 1,000` there).
    fn list(&self, bucket: &str, prefix: &str, max: usize) -> Result<Vec<String>, ObjectError>;
}

/// S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and hyphens, a
/// letter or digit at each end): what makes a bucket name safe as a directory name too.
pub fn valid_bucket_name(bucket: &str) -> bool {
    let bytes = bucket.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && !bucket.contains("..")
}

/// Buckets as directories under `root`: bucket `b`, key `k/l` is the file `root/b/k/l`.
/// Writes go to a temporary file renamed into place, so a reader never sees half an
/// object. A bucket directory is created on first write (S3 would need the bucket made
/// first; locally that is one step less).
pub struct LocalBuckets {
    root: PathBuf,
}

impl LocalBuckets {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LocalBuckets { root: root.into() }
    }

    /// The file of `key` in `bucket`; keys that would leave the bucket are refused.
    fn path(&self, bucket: &str, key: &str) -> Result<PathBuf, ObjectError> {
        if !valid_bucket_name(bucket) {
            return Err(ObjectError::new(
                "S3InvalidBucketName",
                format!("The specified bucket is not valid: {bucket}"),
            ));
        }
        let relative = Path::new(key);
        let plain = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if key.is_empty() || !plain {
            return Err(ObjectError::new(
                "S3InvalidKey",
                format!("The key is not valid here: {key}"),
            ));
        }
        let path = self.root.join(bucket).join(relative);
        self.check_inside(&path, key)?;
        Ok(path)
    }

    /// Refuses a path whose real location (symlinks resolved, as far as it exists yet) is
    /// outside the root: a link under the buckets directory never takes an export's
    /// writes or an import's reads elsewhere.
    fn check_inside(&self, path: &Path, key: &str) -> Result<(), ObjectError> {
        let Ok(root) = self.root.canonicalize() else {
            return Ok(()); // no root yet: nothing under it exists either
        };
        let mut existing = Some(path);
        while let Some(at) = existing {
            if let Ok(real) = at.canonicalize() {
                return if real.starts_with(&root) {
                    Ok(())
                } else {
                    Err(ObjectError::new(
                        "S3AccessDenied",
                        format!("{key} leads outside the buckets directory"),
                    ))
                };
            }
            existing = at.parent();
        }
        Ok(())
    }
}

fn io_error(e: &std::io::Error, what: &str) -> ObjectError {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            ObjectError::new("S3AccessDenied", format!("{what}: {e}"))
        }
        _ => ObjectError::new("S3InternalError", format!("{what}: {e}")),
    }
}

impl Objects for LocalBuckets {
    fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Result<(), ObjectError> {
        let path = self.path(bucket, key)?;
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir).map_err(|e| io_error(&e, key))?;
        // Again once the directories exist (the first root may have been made just now).
        self.check_inside(dir, key)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let temp = dir.join(format!(".{name}.{}.part", uuid::Uuid::new_v4().simple()));
        std::fs::write(&temp, body).map_err(|e| io_error(&e, key))?;
        std::fs::rename(&temp, &path).map_err(|e| {
            let _cleanup = std::fs::remove_file(&temp);
            io_error(&e, key)
        })
    }

    fn get(&self, bucket: &str, key: &str, max: u64) -> Result<Vec<u8>, ObjectError> {
        use std::io::Read;
        let path = self.path(bucket, key)?;
        if !self.root.join(bucket).is_dir() {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        let not_read = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => ObjectError::no_such_key(key),
            _ => io_error(&e, key),
        };
        let file = std::fs::File::open(&path).map_err(not_read)?;
        let mut body = Vec::new();
        // At most one byte past the limit, whatever the file claims or grows to.
        file.take(max.saturating_add(1))
            .read_to_end(&mut body)
            .map_err(not_read)?;
        if body.len() as u64 > max {
            return Err(ObjectError::too_large(key, max));
        }
        Ok(body)
    }

    fn list(&self, bucket: &str, prefix: &str, max: usize) -> Result<Vec<String>, ObjectError> {
        if !valid_bucket_name(bucket) {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        let base = self.root.join(bucket);
        if !base.is_dir() {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        self.check_inside(&base, bucket)?;
        let mut keys = Vec::new();
        let mut dirs = vec![base.clone()];
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| io_error(&e, prefix))?;
            for entry in entries {
                let entry = entry.map_err(|e| io_error(&e, prefix))?;
                let path = entry.path();
                // Linked directories are not walked (no cycles, no way out of the root);
                // a linked file is listed only if it lies inside.
                let kind = entry.file_type().map_err(|e| io_error(&e, prefix))?;
                if kind.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if kind.is_symlink() && (path.is_dir() || self.check_inside(&path, prefix).is_err())
                {
                    continue;
                }
                let Ok(relative) = path.strip_prefix(&base) else {
                    continue;
                };
                let key = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                let hidden = relative
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with(".part"));
                if key.starts_with(prefix) && !hidden {
                    if keys.len() == max {
                        return Err(ObjectError::too_many(prefix, max));
                    }
                    keys.push(key);
                }
            }
        }
        keys.sort();
        Ok(keys)
    }
}

/// Buckets in memory (tests, `--in-memory`). Buckets spring into being on first write.
#[derive(Default)]
pub struct MemoryBuckets {
    objects: Mutex<BTreeMap<(String, String), Vec<u8>>>,
}

impl MemoryBuckets {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Objects for MemoryBuckets {
    fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Result<(), ObjectError> {
        if !valid_bucket_name(bucket) {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        self.objects
            .lock()
            .insert((bucket.to_owned(), key.to_owned()), body.to_vec());
        Ok(())
    }

    fn get(&self, bucket: &str, key: &str, max: u64) -> Result<Vec<u8>, ObjectError> {
        let objects = self.objects.lock();
        if !objects.keys().any(|(b, _)| b == bucket) {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        let body = objects
            .get(&(bucket.to_owned(), key.to_owned()))
            .ok_or_else(|| ObjectError::no_such_key(key))?;
        if body.len() as u64 > max {
            return Err(ObjectError::too_large(key, max));
        }
        Ok(body.clone())
    }

    fn list(&self, bucket: &str, prefix: &str, max: usize) -> Result<Vec<String>, ObjectError> {
        let objects = self.objects.lock();
        if !objects.keys().any(|(b, _)| b == bucket) {
            return Err(ObjectError::no_such_bucket(bucket));
        }
        let keys: Vec<String> = objects
            .keys()
            .filter(|(b, k)| b == bucket && k.starts_with(prefix))
            .map(|(_, k)| k.clone())
            .take(max.saturating_add(1))
            .collect();
        if keys.len() > max {
            return Err(ObjectError::too_many(prefix, max));
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(objects: &dyn Objects) {
        assert_eq!(
            objects.get("bucket-1", "a", u64::MAX).unwrap_err().code,
            "S3NoSuchBucket"
        );
        objects
            .put("bucket-1", "p/AWSDynamoDB/x/_started", b"")
            .expect("put");
        objects
            .put("bucket-1", "p/AWSDynamoDB/x/data/one.json.gz", b"1")
            .expect("put");
        objects.put("bucket-1", "q/other", b"2").expect("put");
        assert_eq!(
            objects.get("bucket-1", "q/other", u64::MAX).expect("get"),
            b"2"
        );
        objects.put("bucket-1", "q/big", b"12345").expect("put");
        assert_eq!(
            objects.get("bucket-1", "q/big", 5).expect("at the bound"),
            b"12345"
        );
        let refused = objects.get("bucket-1", "q/big", 4).unwrap_err();
        assert_eq!(refused.code, OBJECT_TOO_LARGE);
        assert_eq!(
            objects
                .get("bucket-1", "q/none", u64::MAX)
                .unwrap_err()
                .code,
            "S3NoSuchKey"
        );
        assert_eq!(
            objects
                .list("bucket-1", "p/", 2)
                .expect("list at the bound"),
            [
                "p/AWSDynamoDB/x/_started",
                "p/AWSDynamoDB/x/data/one.json.gz"
            ]
        );
        let refused = objects.list("bucket-1", "p/", 1).unwrap_err();
        assert_eq!(refused.code, TOO_MANY_OBJECTS);
        assert!(refused.message.contains("more than 1 objects"), "{refused}");
    }

    #[test]
    fn local_and_memory_buckets_behave_alike() {
        let dir = tempfile::tempdir().expect("tempdir");
        round_trip(&LocalBuckets::new(dir.path()));
        round_trip(&MemoryBuckets::new());
    }

    #[test]
    fn local_keys_cannot_leave_their_bucket() {
        let dir = tempfile::tempdir().expect("tempdir");
        let buckets = LocalBuckets::new(dir.path().join("root"));
        for key in ["../escape", "a/../../b", "/abs", ""] {
            assert!(buckets.put("bucket-1", key, b"x").is_err(), "{key}");
        }
        for bucket in ["..", "a", "UPPER", "a/b", "-bad"] {
            assert!(buckets.put(bucket, "k", b"x").is_err(), "{bucket}");
        }
        assert!(!dir.path().join("escape").exists());
    }

    #[cfg(unix)]
    #[test]
    fn links_do_not_lead_out_of_the_buckets_directory() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("bucket-1")).expect("bucket");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(outside.join("secret"), b"s").expect("secret");
        // A linked directory and a linked file leading out, one link that stays inside,
        // and a cycle.
        symlink(&outside, root.join("bucket-1/out")).expect("link");
        symlink(outside.join("secret"), root.join("bucket-1/secret")).expect("link");
        symlink(dir.path(), root.join("bucket-2")).expect("link");
        std::fs::write(root.join("bucket-1/real"), b"r").expect("file");
        symlink(root.join("bucket-1/real"), root.join("bucket-1/alias")).expect("link");
        symlink(root.join("bucket-1"), root.join("bucket-1/loop")).expect("link");
        let buckets = LocalBuckets::new(&root);
        let denied = |r: Result<Vec<u8>, ObjectError>| r.unwrap_err().code;
        assert_eq!(
            denied(buckets.get("bucket-1", "secret", 10)),
            "S3AccessDenied"
        );
        assert_eq!(
            denied(buckets.get("bucket-1", "out/secret", 10)),
            "S3AccessDenied"
        );
        assert_eq!(
            buckets
                .put("bucket-1", "out/written", b"x")
                .unwrap_err()
                .code,
            "S3AccessDenied"
        );
        assert_eq!(
            buckets
                .put("bucket-2", "outside/written", b"x")
                .unwrap_err()
                .code,
            "S3AccessDenied"
        );
        assert!(!outside.join("written").exists());
        assert_eq!(
            buckets.list("bucket-2", "", 10).unwrap_err().code,
            "S3AccessDenied"
        );
        assert_eq!(buckets.get("bucket-1", "alias", 10).expect("inside"), b"r");
        assert_eq!(
            buckets.list("bucket-1", "", 10).expect("list"),
            ["alias", "real"],
            "links out and linked directories are not listed"
        );
    }
}
