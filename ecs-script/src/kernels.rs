//! `kernels`: bulk arithmetic over Luau buffers of numbers, one native call
//! per array instead of a Luau step per element. Made for the batch form
//! (`query:buffers`), whose fields come as such buffers:
//!
//! ```lua
//! world:query(Position, Velocity):buffers(function(n, p, v)
//!     kernels.axpy_f64(p, v, dt)   -- p[i] += dt * v[i]
//! end)
//! ```
//!
//! Each function comes in an `_f64` and an `_f32` form (the field's kind);
//! arrays are buffers of little-endian values, as `buffers` hands them out:
//! - `add(dst, src)`: `dst[i] += src[i]`; `sub`, `mul` alike;
//! - `axpy(dst, src, k)`: `dst[i] += k * src[i]`;
//! - `scale(dst, k)`: `dst[i] *= k`; `fill(dst, k)`: `dst[i] = k`.
//!
//! Buffers of different lengths, or of a length that is not a whole number of
//! values, are an error naming the function, and nothing is written.

use mlua::{Buffer, Lua, Table, Value};

/// A float type the kernels work on.
trait Float: Copy {
    const SIZE: usize;
    const NAME: &'static str;
    fn read(bytes: &[u8]) -> Self;
    fn write(self, bytes: &mut [u8]);
    fn from_f64(k: f64) -> Self;
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $name:literal) => {
        impl Float for $t {
            const SIZE: usize = size_of::<$t>();
            const NAME: &'static str = $name;
            #[inline]
            fn read(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one value's bytes"))
            }
            #[inline]
            fn write(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn from_f64(k: f64) -> Self {
                k as $t
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline]
            fn sub(self, other: Self) -> Self {
                self - other
            }
            #[inline]
            fn mul(self, other: Self) -> Self {
                self * other
            }
        }
    };
}

float!(f64, "f64");
float!(f32, "f32");

/// `dst`'s bytes, checked to hold whole values (and, with `src`, as many).
fn operands<F: Float>(op: &str, dst: &Buffer, src: Option<&Buffer>) -> mlua::Result<(Vec<u8>, Option<Vec<u8>>)> {
    let fail = |what: String| mlua::Error::runtime(format!("kernels.{op}_{}: {what}", F::NAME));
    if dst.len() % F::SIZE != 0 {
        return Err(fail(format!("the buffer's {} bytes are not whole {} values", dst.len(), F::NAME)));
    }
    if let Some(src) = src
        && src.len() != dst.len()
    {
        return Err(fail(format!("the buffers hold {} and {} bytes", dst.len(), src.len())));
    }
    Ok((dst.to_vec(), src.map(Buffer::to_vec)))
}

/// `dst[i] = f(dst[i], src[i])` over every value.
fn zip<F: Float>(op: &str, dst: &Buffer, src: &Buffer, f: impl Fn(F, F) -> F) -> mlua::Result<()> {
    let (mut out, src) = operands::<F>(op, dst, Some(src))?;
    let src = src.expect("asked for");
    for (d, s) in out.chunks_exact_mut(F::SIZE).zip(src.chunks_exact(F::SIZE)) {
        f(F::read(d), F::read(s)).write(d);
    }
    dst.write_bytes(0, &out);
    Ok(())
}

/// `dst[i] = f(dst[i])` over every value.
fn each<F: Float>(op: &str, dst: &Buffer, f: impl Fn(F) -> F) -> mlua::Result<()> {
    let (mut out, _) = operands::<F>(op, dst, None)?;
    for d in out.chunks_exact_mut(F::SIZE) {
        f(F::read(d)).write(d);
    }
    dst.write_bytes(0, &out);
    Ok(())
}

/// Argument `at` of kernel `op`: a buffer, or an error naming the kernel.
fn buffer<F: Float>(op: &str, at: usize, value: Value) -> mlua::Result<Buffer> {
    match value {
        Value::Buffer(buffer) => Ok(buffer),
        other => Err(mlua::Error::runtime(format!(
            "kernels.{op}_{}: argument {at} is {}, not a buffer",
            F::NAME,
            other.type_name()
        ))),
    }
}

/// Argument `at` of kernel `op`: a number, or an error naming the kernel.
fn number<F: Float>(op: &str, at: usize, value: Value) -> mlua::Result<F> {
    match value {
        Value::Number(n) => Ok(F::from_f64(n)),
        Value::Integer(i) => Ok(F::from_f64(i as f64)),
        other => Err(mlua::Error::runtime(format!(
            "kernels.{op}_{}: argument {at} is {}, not a number",
            F::NAME,
            other.type_name()
        ))),
    }
}

fn register<F: Float + 'static>(lua: &Lua, table: &Table) -> mlua::Result<()> {
    let name = |op: &str| format!("{op}_{}", F::NAME);
    // One closure per operation (not a table of function pointers), so that
    // the operation inlines into the loop over the values.
    fn binary<F: Float + 'static>(
        lua: &Lua,
        op: &'static str,
        f: impl Fn(F, F) -> F + Copy + Send + 'static,
    ) -> mlua::Result<mlua::Function> {
        lua.create_function(move |_, (d, s): (Value, Value)| {
            zip::<F>(op, &buffer::<F>(op, 1, d)?, &buffer::<F>(op, 2, s)?, f)
        })
    }
    table.raw_set(name("add"), binary::<F>(lua, "add", F::add)?)?;
    table.raw_set(name("sub"), binary::<F>(lua, "sub", F::sub)?)?;
    table.raw_set(name("mul"), binary::<F>(lua, "mul", F::mul)?)?;
    table.raw_set(
        name("axpy"),
        lua.create_function(|_, (d, s, k): (Value, Value, Value)| {
            let (d, s, k) = (buffer::<F>("axpy", 1, d)?, buffer::<F>("axpy", 2, s)?, number::<F>("axpy", 3, k)?);
            zip::<F>("axpy", &d, &s, |d, s| d.add(k.mul(s)))
        })?,
    )?;
    table.raw_set(
        name("scale"),
        lua.create_function(|_, (d, k): (Value, Value)| {
            let (d, k) = (buffer::<F>("scale", 1, d)?, number::<F>("scale", 2, k)?);
            each::<F>("scale", &d, |d| d.mul(k))
        })?,
    )?;
    table.raw_set(
        name("fill"),
        lua.create_function(|_, (d, k): (Value, Value)| {
            let (d, k) = (buffer::<F>("fill", 1, d)?, number::<F>("fill", 2, k)?);
            each::<F>("fill", &d, |_| k)
        })?,
    )?;
    Ok(())
}

/// The `kernels` table, for the VM's globals.
pub(crate) fn table(lua: &Lua) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    register::<f64>(lua, &table)?;
    register::<f32>(lua, &table)?;
    table.set_readonly(true);
    Ok(table)
}
