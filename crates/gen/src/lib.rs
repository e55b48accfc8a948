//! ndq-gen: a deterministic generator of realistic NDJSON service logs.
//!
//! The events look like what a .NET or Python service writes through Serilog's compact JSON
//! formatter (CLEF) and what Seq ingests: `@t`, `@mt`, `@l`, a rendered `Message`, `Elapsed`
//! milliseconds with four decimals, `RequestPath`, `StatusCode`, nested `Properties`, and on
//! errors an `@x` stack trace. They average about 1 KiB, and they carry the things that make a
//! scanner's life hard: escaped quotes, newlines and tabs inside strings, `\uXXXX` escapes,
//! non-ASCII text, `\/`-escaped slashes (as some JSON writers emit), nested objects and arrays,
//! and a share of lines written with spaces after `:` and `,` (as Python's `json.dumps` does).
//!
//! The same seed always gives the same bytes, on every platform, so benchmarks and tests over
//! generated data are repeatable. Every line is a valid JSON object (tested against serde_json).
//!
//! ```
//! let bytes = ndq_gen::generate(7, 64 * 1024);
//! assert!(bytes.len() >= 64 * 1024);
//! assert!(bytes.ends_with(b"\n"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::io::{self, Write};

/// A seeded stream of log events.
#[derive(Clone, Debug)]
pub struct Generator {
    rng: SplitMix64,
    /// Milliseconds since the Unix epoch of the next event.
    clock_ms: u64,
}

const LEVELS: &[(&str, u32)] = &[
    ("Information", 70),
    ("Debug", 14),
    ("Warning", 10),
    ("Error", 5),
    ("Fatal", 1),
];
const METHODS: &[&str] = &["GET", "GET", "GET", "POST", "PUT", "DELETE"];
const RESOURCES: &[&str] = &[
    "/api/customers",
    "/api/orders",
    "/api/products",
    "/api/invoices",
    "/health",
    "/api/search",
    "/api/users",
    "/metrics",
];
const MACHINES: &[&str] = &["web-01", "web-02", "web-03", "worker-01", "worker-02"];
const SOURCES: &[&str] = &[
    "Shop.Api.Controllers.CustomersController",
    "Shop.Api.Controllers.OrdersController",
    "Shop.Billing.InvoiceService",
    "Microsoft.AspNetCore.Hosting.Diagnostics",
    "Shop.Search.Indexer",
];
const USERS: &[&str] = &[
    "alice",
    "bob",
    "carol",
    "dave",
    "José Álvarez",
    "Zoë \"Z\" Smith",
    "Łukasz",
    "山田太郎",
    "o'brien",
    "eve\\admin",
];
const AGENTS: &[&str] = &[
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "curl/8.5.0",
    "python-requests/2.31.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
];
const TAGS: &[&str] = &["beta", "mobile", "eu-west", "premium", "canary", "internal"];
const ERRORS: &[(&str, &str)] = &[
    (
        "System.InvalidOperationException",
        "Sequence contains no elements",
    ),
    (
        "System.Data.SqlClient.SqlException",
        "Timeout expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.",
    ),
    (
        "System.NullReferenceException",
        "Object reference not set to an instance of an object.",
    ),
    (
        "System.IO.IOException",
        "Unable to read data from the transport connection: Connection reset by peer.",
    ),
];
const FRAMES: &[&str] = &[
    "Shop.Api.Controllers.CustomersController.Get(Int32 id) in /src/Shop.Api/Controllers/CustomersController.cs:line 42",
    "Shop.Data.Repository`1.FindAsync(Expression`1 predicate) in /src/Shop.Data/Repository.cs:line 118",
    "Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor.TaskOfIActionResultExecutor.Execute(IActionResultTypeMapper mapper, ObjectMethodExecutor executor, Object controller, Object[] arguments)",
    "Microsoft.AspNetCore.Mvc.Infrastructure.ControllerActionInvoker.<InvokeActionMethodAsync>g__Logged|12_1(ControllerActionInvoker invoker)",
    "Shop.Billing.InvoiceService.RenderAsync(Invoice invoice, CancellationToken ct) in /src/Shop.Billing/InvoiceService.cs:line 77",
    "System.Linq.ThrowHelper.ThrowNoElementsException()",
    "Microsoft.AspNetCore.Routing.EndpointMiddleware.<Invoke>g__AwaitRequestTask|6_0(Endpoint endpoint, Task requestTask, ILogger logger)",
];

impl Generator {
    /// A generator whose output is fixed by `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: SplitMix64(seed ^ 0x6e64_715f_6c6f_6773),
            // 2026-11-21T00:00:00Z
            clock_ms: 1_795_219_200_000,
        }
    }

    /// Append one event and its `\n` to `out`.
    pub fn next_event(&mut self, out: &mut Vec<u8>) {
        let r = &mut self.rng;
        self.clock_ms += r.below(40);
        let spaced = r.below(100) < 5;
        let (colon, comma) = if spaced { (": ", ", ") } else { (":", ",") };
        let mut w = Obj {
            out,
            colon,
            comma,
            first: true,
        };
        w.out.push(b'{');

        let level = pick_weighted(r, LEVELS);
        let method = pick(r, METHODS);
        let resource = pick(r, RESOURCES);
        let id = r.below(100_000);
        let path = if resource.starts_with("/api") && r.below(3) > 0 {
            format!("{resource}/{id}")
        } else {
            resource.to_string()
        };
        let status = match level {
            "Error" | "Fatal" => 500,
            "Warning" => pick(r, &[400u64, 404, 409, 429]),
            _ => pick(r, &[200u64, 200, 200, 201, 204, 304]),
        };
        let elapsed = elapsed_ms(r, level);

        w.key("@t");
        w.string_raw(&timestamp(self.clock_ms));
        w.key("@mt");
        w.string_raw(
            "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
        );
        w.key("@l");
        w.string_raw(level);
        w.key("Message");
        // Some writers escape '/' as '\/'; about 1 line in 50 here does.
        let shown_path = if r.below(50) == 0 {
            path.replace('/', "\\/")
        } else {
            path.clone()
        };
        let mut message = format!("HTTP {method} {shown_path} responded {status} in {elapsed} ms");
        if r.below(10) == 0 {
            let user = escape(pick(r, USERS));
            message.push_str(&format!(" for user \\\"{user}\\\""));
        }
        if r.below(20) == 0 {
            message.push_str("\\n\\tretry=1; caf\\u00e9 \\u2713");
        }
        w.string_raw(&message);
        w.key("RequestMethod");
        w.string_raw(method);
        w.key("RequestPath");
        w.string_raw(&path);
        w.key("StatusCode");
        w.raw(&status.to_string());
        w.key("Elapsed");
        w.raw(&elapsed);
        w.key("SourceContext");
        w.string_raw(pick(r, SOURCES));
        w.key("MachineName");
        w.string_raw(pick(r, MACHINES));
        w.key("ThreadId");
        w.raw(&(1 + r.below(64)).to_string());
        w.key("TraceId");
        w.string_raw(&format!("{:016x}{:016x}", r.next(), r.next()));
        w.key("ConnectionId");
        w.string_raw(&format!("0HN{:09X}", r.below(1 << 36)));

        // Nested properties: an object with an object, an array and an odd key.
        w.key("Properties");
        let mut p = Obj {
            out: &mut Vec::new(),
            colon,
            comma,
            first: true,
        };
        p.out.push(b'{');
        p.key("User");
        p.raw(&format!(
            "{{\"Id\"{colon}{}{comma}\"Name\"{colon}\"{}\"{comma}\"Roles\"{colon}[\"reader\"{comma}\"writer\"]}}",
            r.below(10_000),
            escape(pick(r, USERS))
        ));
        p.key("Tags");
        let n_tags = r.below(4);
        let tags: Vec<String> = (0..n_tags)
            .map(|_| format!("\"{}\"", pick(r, TAGS)))
            .collect();
        p.raw(&format!("[{}]", tags.join(comma)));
        p.key("Headers");
        p.raw(&format!(
            "{{\"User-Agent\"{colon}\"{}\"{comma}\"Accept\"{colon}\"application/json\"{comma}\"X-Request-Id\"{colon}\"{:08x}\"}}",
            pick(r, AGENTS),
            r.next() as u32
        ));
        p.key("Cart");
        let items = r.below(4);
        let mut cart = String::from("[");
        for i in 0..items {
            if i > 0 {
                cart.push_str(comma);
            }
            cart.push_str(&format!(
                "{{\"Sku\"{colon}\"SKU-{:05}\"{comma}\"Qty\"{colon}{}{comma}\"Price\"{colon}{}.{:02}}}",
                r.below(100_000),
                1 + r.below(5),
                r.below(500),
                r.below(100)
            ));
        }
        cart.push(']');
        p.raw(&cart);
        p.key("Sampled");
        p.raw(if r.below(2) == 0 { "true" } else { "false" });
        p.key("ParentSpanId");
        if r.below(4) == 0 {
            p.raw("null");
        } else {
            p.string_raw(&format!("{:016x}", r.next()));
        }
        p.out.push(b'}');
        let props = std::mem::take(p.out);
        w.raw(std::str::from_utf8(&props).unwrap_or("{}"));

        if matches!(level, "Error" | "Fatal") {
            let (ty, msg) = pick(r, ERRORS);
            let mut trace = format!("{ty}: {msg}");
            for _ in 0..(4 + r.below(8)) {
                trace.push_str("\\n   at ");
                trace.push_str(pick(r, FRAMES));
            }
            w.key("@x");
            w.string_raw(&trace);
        }
        w.out.extend_from_slice(b"}\n");
    }
}

/// About `approx_bytes` of events (whole lines; at least that many bytes), from `seed`.
pub fn generate(seed: u64, approx_bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(approx_bytes + 4096);
    let mut g = Generator::new(seed);
    while out.len() < approx_bytes {
        g.next_event(&mut out);
    }
    out
}

/// Write at least `approx_bytes` of events from `seed` to `w`; returns the bytes written.
pub fn write_to<W: Write>(seed: u64, approx_bytes: u64, mut w: W) -> io::Result<u64> {
    let mut g = Generator::new(seed);
    let mut buf = Vec::with_capacity(1 << 20);
    let mut written = 0u64;
    while written < approx_bytes {
        buf.clear();
        while buf.len() < (1 << 20) - 8192 && written + (buf.len() as u64) < approx_bytes {
            g.next_event(&mut buf);
        }
        w.write_all(&buf)?;
        written += buf.len() as u64;
    }
    w.flush()?;
    Ok(written)
}

/// Writes one JSON object's members with a chosen separator style.
struct Obj<'a> {
    out: &'a mut Vec<u8>,
    colon: &'a str,
    comma: &'a str,
    first: bool,
}

impl Obj<'_> {
    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.extend_from_slice(self.comma.as_bytes());
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(k.as_bytes());
        self.out.push(b'"');
        self.out.extend_from_slice(self.colon.as_bytes());
    }
    /// A string whose text is already JSON-escaped.
    fn string_raw(&mut self, s: &str) {
        self.out.push(b'"');
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(b'"');
    }
    fn raw(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }
}

/// JSON-escape `s` (quotes and backslashes; the tables hold no control characters).
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Milliseconds with four decimals, mostly small, with a long tail: about one event in six
/// takes more than 200 ms.
fn elapsed_ms(r: &mut SplitMix64, level: &str) -> String {
    let base = match r.below(100) {
        0..=59 => r.below(50_000),            // < 50 ms
        60..=83 => 50_000 + r.below(150_000), // 50..200 ms
        84..=97 => 200_000 + r.below(800_000),
        _ => 1_000_000 + r.below(29_000_000), // seconds
    };
    let micros_x10 = if level == "Error" { base * 3 } else { base } * 10 + r.below(10);
    format!("{}.{:04}", micros_x10 / 10_000, micros_x10 % 10_000)
}

/// ISO 8601 UTC with 7 fractional digits, as .NET writes it.
fn timestamp(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}0000Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ms % 1000
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's method).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn pick<T: Copy>(r: &mut SplitMix64, items: &[T]) -> T {
    items[r.below(items.len() as u64) as usize]
}

fn pick_weighted(r: &mut SplitMix64, items: &[(&'static str, u32)]) -> &'static str {
    let total: u32 = items.iter().map(|(_, w)| w).sum();
    let mut n = r.below(u64::from(total)) as u32;
    for (item, w) in items {
        if n < *w {
            return item;
        }
        n -= w;
    }
    items[0].0
}

/// SplitMix64: small, fast, and identical everywhere (no dependency needed for test data).
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant for test data.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_a_json_object_serde_accepts() {
        let bytes = generate(1, 2 << 20);
        let mut lines = 0;
        let mut spaced = 0;
        let mut errors = 0;
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(line)));
            assert!(v.is_object());
            assert!(v["Elapsed"].is_number());
            assert!(v["Properties"]["User"]["Name"].is_string());
            lines += 1;
            spaced += usize::from(line.windows(3).any(|w| w == b"\": "));
            errors += usize::from(v.get("@x").is_some());
        }
        let avg = bytes.len() / lines;
        assert!((600..1600).contains(&avg), "average event size {avg}");
        assert!(spaced > 0 && spaced < lines / 5, "spaced {spaced}/{lines}");
        assert!(errors > 0, "no stack traces");
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        assert_eq!(generate(3, 100_000), generate(3, 100_000));
        assert_ne!(generate(3, 100_000), generate(4, 100_000));
    }

    #[test]
    fn write_to_matches_generate() {
        let mut v = Vec::new();
        let n = write_to(9, 3 << 20, &mut v).unwrap();
        assert_eq!(n as usize, v.len());
        let g = generate(9, v.len());
        assert_eq!(&g[..v.len()], &v[..]);
    }

    #[test]
    fn timestamps_are_calendar_dates() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.0000000Z");
        assert_eq!(timestamp(951_782_400_000), "2000-02-29T00:00:00.0000000Z");
        assert_eq!(timestamp(1_795_219_200_123), "2026-11-21T00:00:00.1230000Z");
    }
}
