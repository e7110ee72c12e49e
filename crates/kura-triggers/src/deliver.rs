//! Invoking a trigger's function with an event: an HTTP POST in Lambda's invoke shape (what
//! the Lambda Runtime Interface Emulator and SAM local serve), or a command that reads the
//! event on standard input and writes its answer on standard output.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::config::Function;
use crate::error::TriggerError;

/// Most bytes of a function's answer (Lambda's synchronous response limit, 6 MB): a
/// larger answer fails the invocation, as in Lambda, and is not read past the limit.
const MAX_ANSWER_BYTES: usize = 6 * 1024 * 1024;

/// Most bytes of a command's standard error kept for the failure message.
const MAX_STDERR_BYTES: usize = 64 * 1024;

fn answer_too_large() -> TriggerError {
    TriggerError::FunctionFailed(format!(
        "Response payload size exceeded maximum allowed payload size ({MAX_ANSWER_BYTES} bytes)."
    ))
}

/// Invokes functions; one per trigger runner (it keeps HTTP connections open).
#[derive(Clone)]
pub struct Invoker {
    client: Client<HttpConnector, Full<Bytes>>,
    timeout: Duration,
}

impl Invoker {
    /// An invoker giving each invocation `timeout` (Lambda's default function timeout is
    /// 3 s; local functions are often slower to start, so callers choose).
    pub fn new(timeout: Duration) -> Invoker {
        Invoker {
            client: Client::builder(TokioExecutor::new()).build_http(),
            timeout,
        }
    }

    /// Sends `event` to `function`; its answer's bytes, or why it failed.
    pub async fn invoke(
        &self,
        function: &Function,
        event: &Value,
    ) -> Result<Vec<u8>, TriggerError> {
        let body =
            serde_json::to_vec(event).map_err(|e| TriggerError::Unreachable(e.to_string()))?;
        let call = async {
            match function {
                Function::Url(url) => self.post(url, body).await,
                Function::Command(argv) => run(argv, &body).await,
            }
        };
        tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| {
                TriggerError::Unreachable(format!("no answer within {:?}", self.timeout))
            })?
    }

    async fn post(&self, url: &str, body: Vec<u8>) -> Result<Vec<u8>, TriggerError> {
        let request = hyper::Request::post(url)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| TriggerError::Unreachable(format!("{url}: {e}")))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| TriggerError::Unreachable(format!("{url}: {e}")))?;
        let status = response.status();
        let function_error = response
            .headers()
            .get("x-amz-function-error")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let answer = http_body_util::Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    answer_too_large()
                } else {
                    TriggerError::Unreachable(format!("{url}: {e}"))
                }
            })?
            .to_bytes()
            .to_vec();
        if let Some(kind) = function_error {
            return Err(TriggerError::FunctionFailed(format!(
                "{kind}: {}",
                String::from_utf8_lossy(&answer)
            )));
        }
        if !status.is_success() {
            return Err(TriggerError::FunctionFailed(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&answer)
            )));
        }
        Ok(answer)
    }
}

/// Runs `argv` with the event on standard input; its standard output is the answer.
async fn run(argv: &[String], event: &[u8]) -> Result<Vec<u8>, TriggerError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| TriggerError::Unreachable("an empty command".into()))?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| TriggerError::Unreachable(format!("{program}: {e}")))?;
    // The event is written while stdout and stderr are read: a command that writes much
    // before reading all its input, or much to stderr, must not block on a full pipe.
    let writer = child.stdin.take().map(|mut stdin| {
        let event = event.to_vec();
        tokio::spawn(async move {
            // A command that exits without reading its input is not an error of delivery.
            let _ = stdin.write_all(&event).await;
        })
    });
    // Both pipes are read to their end (so the command never blocks on them), keeping
    // only what the answer and the failure message can use.
    let stdout = child
        .stdout
        .take()
        .map(|out| tokio::spawn(read_capped(out, MAX_ANSWER_BYTES)));
    let stderr = child
        .stderr
        .take()
        .map(|err| tokio::spawn(read_capped(err, MAX_STDERR_BYTES)));
    let status = child
        .wait()
        .await
        .map_err(|e| TriggerError::Unreachable(format!("{program}: {e}")))?;
    if let Some(writer) = writer {
        let _ = writer.await;
    }
    let joined = |task: Option<tokio::task::JoinHandle<Capped>>| async {
        match task {
            Some(task) => task
                .await
                .map_err(|e| TriggerError::Unreachable(format!("{program}: {e}")))?
                .map_err(|e| TriggerError::Unreachable(format!("{program}: {e}"))),
            None => Ok((Vec::new(), false)),
        }
    };
    let (answer, answer_cut) = joined(stdout).await?;
    let (stderr, _) = joined(stderr).await?;
    if !status.success() {
        let stderr = String::from_utf8_lossy(&stderr);
        return Err(TriggerError::FunctionFailed(format!(
            "{program} exited with {status}: {}",
            stderr.trim()
        )));
    }
    if answer_cut {
        return Err(answer_too_large());
    }
    Ok(answer)
}

/// What [`read_capped`] kept, and whether more came.
type Capped = std::io::Result<(Vec<u8>, bool)>;

/// Reads `from` to its end, keeping the first `cap` bytes; whether more came.
async fn read_capped(mut from: impl tokio::io::AsyncRead + Unpin, cap: usize) -> Capped {
    use tokio::io::AsyncReadExt;
    let mut kept = Vec::new();
    let mut cut = false;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf).await?;
        if n == 0 {
            return Ok((kept, cut));
        }
        let room = cap - kept.len();
        kept.extend_from_slice(&buf[..n.min(room)]);
        cut |= n > room;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    fn sh(script: &str) -> Function {
        Function::Command(vec!["sh".into(), "-c".into(), script.into()])
    }

    #[tokio::test]
    async fn a_command_reads_the_event_and_answers() {
        let invoker = Invoker::new(Duration::from_secs(10));
        let event = json!({"Records": [{"eventID": "1"}]});
        // The command echoes what it read: the answer is the event.
        let answer = invoker.invoke(&sh("cat"), &event).await.expect("answer");
        assert_eq!(
            serde_json::from_slice::<Value>(&answer).expect("json"),
            event
        );
        let failed = invoker
            .invoke(&sh("cat >/dev/null; echo boom >&2; exit 3"), &event)
            .await
            .expect_err("exit 3");
        assert!(
            matches!(&failed, TriggerError::FunctionFailed(m) if m.contains("boom")),
            "{failed}"
        );
        // Much on stderr before the input is read, and a large event: no pipe fills up.
        let big = json!({"Records": [{"pad": "x".repeat(1 << 20)}]});
        let answer = invoker
            .invoke(
                &sh("head -c 300000 /dev/zero >&2; cat >/dev/null; echo '{}'"),
                &big,
            )
            .await
            .expect("a chatty command answers");
        assert_eq!(answer, b"{}\n");
        // An answer over Lambda's 6 MB fails the invocation, read to its end but not kept.
        let huge = invoker
            .invoke(&sh("cat >/dev/null; head -c 8000000 /dev/zero"), &event)
            .await
            .expect_err("over 6 MB");
        assert!(
            matches!(&huge, TriggerError::FunctionFailed(m) if m.contains("exceeded maximum allowed payload size")),
            "{huge}"
        );
        let missing = Function::Command(vec!["/nonexistent/kura-function".into()]);
        assert!(matches!(
            invoker.invoke(&missing, &event).await,
            Err(TriggerError::Unreachable(_))
        ));
        let slow = Invoker::new(Duration::from_millis(200));
        assert!(matches!(
            slow.invoke(&sh("sleep 5"), &event).await,
            Err(TriggerError::Unreachable(m)) if m.contains("no answer")
        ));
    }

    /// A one-request HTTP server answering `status`, `headers` and `body`; returns its URL
    /// and the request body it received.
    async fn function_server(
        status: &'static str,
        headers: &'static str,
        body: &'static str,
    ) -> (String, tokio::task::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "http://{}/2015-03-31/functions/function/invocations",
            listener.local_addr().expect("addr")
        );
        let served = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let n = socket.read(&mut buffer).await.expect("read");
                request.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&request).to_string();
                if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                    let length: usize = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(str::to_owned)
                        })
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if rest.len() >= length {
                        let reply = format!(
                            "HTTP/1.1 {status}\r\ncontent-length: {}\r\n{headers}connection: close\r\n\r\n{body}",
                            body.len()
                        );
                        socket.write_all(reply.as_bytes()).await.expect("write");
                        return rest.to_owned();
                    }
                }
                if n == 0 {
                    return String::new();
                }
            }
        });
        (url, served)
    }

    #[tokio::test]
    async fn an_http_function_gets_lambdas_invoke_post() {
        let invoker = Invoker::new(Duration::from_secs(10));
        let event = json!({"Records": [{"eventID": "1", "eventName": "INSERT"}]});
        let (url, served) = function_server("200 OK", "", r#"{"batchItemFailures": []}"#).await;
        let answer = invoker
            .invoke(&Function::Url(url), &event)
            .await
            .expect("answer");
        assert_eq!(answer, br#"{"batchItemFailures": []}"#);
        let received: Value = serde_json::from_str(&served.await.expect("served")).expect("json");
        assert_eq!(received, event);

        // The Runtime Interface Emulator reports an unhandled error in a header.
        let (url, _) = function_server(
            "200 OK",
            "x-amz-function-error: Unhandled\r\n",
            r#"{"errorMessage": "bad record", "errorType": "Error"}"#,
        )
        .await;
        let failed = invoker.invoke(&Function::Url(url), &event).await;
        assert!(
            matches!(&failed, Err(TriggerError::FunctionFailed(m)) if m.contains("Unhandled")),
            "{failed:?}"
        );
        let (url, _) = function_server("502 Bad Gateway", "", "down").await;
        assert!(matches!(
            invoker.invoke(&Function::Url(url), &event).await,
            Err(TriggerError::FunctionFailed(m)) if m.contains("502")
        ));
        // Nothing listening.
        let closed = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/", closed.local_addr().expect("addr"));
        drop(closed);
        assert!(matches!(
            invoker.invoke(&Function::Url(url), &event).await,
            Err(TriggerError::Unreachable(_))
        ));
    }
}
