//! [`Lane`]: the field kinds handed to scripts in bulk (numbers and
//! booleans), as Luau values and as the little-endian bytes of a buffer.

use ecs_core::world::FieldValue;
use mlua::Value;

/// A field kind the batch forms hand out: numbers and booleans.
pub(crate) trait Lane: FieldValue + Copy + 'static {
    /// Bytes per element in a buffer.
    const SIZE: usize;
    fn to_lua(self) -> Value;
    /// The value as the number a script sees; `None` for a boolean.
    fn to_number(self) -> Option<f64>;
    fn from_lua(value: &Value) -> Option<Self>;
    /// Appends the value's little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// The value in `bytes` (`SIZE` of them); `None` for bytes that are no
    /// value of the kind (a `bool` other than 0 or 1).
    fn take(bytes: &[u8]) -> Option<Self>;
    /// Whether any `SIZE` bytes are a value (nothing to check in a buffer).
    const ANY_BYTES: bool;
    /// Appends every value's little-endian bytes.
    fn put_all(values: &[Self], out: &mut Vec<u8>) {
        values.iter().for_each(|v| v.put(out));
    }
    /// Writes the values `bytes` holds (checked already) over `values`.
    fn take_all(bytes: &[u8], values: &mut [Self]) {
        for (v, b) in values.iter_mut().zip(bytes.chunks_exact(Self::SIZE)) {
            *v = Self::take(b).expect("checked");
        }
    }
}

/// The byte side of a number lane: a value is its little-endian bytes, so
/// `put_all` and `take_all` are one copy.
macro_rules! le_bytes {
    ($t:ty) => {
        const SIZE: usize = size_of::<$t>();
        const ANY_BYTES: bool = true;
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.to_le_bytes());
        }
        fn take(bytes: &[u8]) -> Option<Self> {
            Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
        }
        fn put_all(values: &[Self], out: &mut Vec<u8>) {
            if cfg!(target_endian = "little") {
                out.extend_from_slice(bytemuck::cast_slice(values));
            } else {
                values.iter().for_each(|v| v.put(out));
            }
        }
        fn take_all(bytes: &[u8], values: &mut [Self]) {
            if cfg!(target_endian = "little") {
                bytemuck::cast_slice_mut::<Self, u8>(values).copy_from_slice(bytes);
            } else {
                for (v, b) in values.iter_mut().zip(bytes.chunks_exact(Self::SIZE)) {
                    *v = Self::take(b).expect("checked");
                }
            }
        }
    };
}

/// A script's number as a Luau value holds it.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

macro_rules! int_lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            le_bytes!($t);
            fn to_lua(self) -> Value {
                Value::Number(self as f64)
            }
            fn to_number(self) -> Option<f64> {
                Some(self as f64)
            }
            fn from_lua(value: &Value) -> Option<Self> {
                // Whole and in range, or refused (never wrapped).
                number(value).filter(|n| n.fract() == 0.0 && *n >= <$t>::MIN as f64 && *n <= <$t>::MAX as f64).map(|n| n as $t)
            }
        }
    )*};
}

macro_rules! float_lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            le_bytes!($t);
            fn to_lua(self) -> Value {
                Value::Number(f64::from(self))
            }
            fn to_number(self) -> Option<f64> {
                Some(f64::from(self))
            }
            fn from_lua(value: &Value) -> Option<Self> {
                number(value).map(|n| n as $t)
            }
        }
    )*};
}

int_lane!(i8, i16, i32, i64, u8, u16, u32, u64);
float_lane!(f32, f64);

impl Lane for bool {
    const SIZE: usize = 1;
    const ANY_BYTES: bool = false;
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn take(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
    fn to_lua(self) -> Value {
        Value::Boolean(self)
    }
    fn to_number(self) -> Option<f64> {
        None
    }
    fn from_lua(value: &Value) -> Option<Self> {
        match value {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}
