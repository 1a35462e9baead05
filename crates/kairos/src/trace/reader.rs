//! [`TraceReader`]: opens a trace, checks its header and footer, decodes the header and
//! streams the records, checking each against the header and the record hash at the end;
//! [`check_time`], whether a time lies within a trace's span.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::format::{
    corrupt, TraceError, FIXED_HEADER, FLAG_SLEEP, FOOTER_MAGIC, FOOTER_SIZE, MAGIC, RECORD_SIZE,
    RECORD_SIZE_V3, VERSION,
};
use super::header::{BodyState, TraceHeader, BODY_STATE_SIZE, BODY_STATE_SIZE_V3};
use super::record::Record;
use crate::event::EventKind;
use crate::hash::Fnv1a;
use crate::num::Num;
use crate::scene::Scene;

/// Reads a trace record by record, checking its integrity: the header and footer when it is
/// opened (in version 2 their checksum), and each record as it is read (known kind, finite
/// time within the trace's span and no earlier than the previous record's, ids of existing
/// bodies and walls, finite states, z = 0 in 2D, known sleep flags), then the record hash
/// after the last one. Every state a [`Replay`](super::Replay) of the trace can be asked for
/// within its span is finite: a body's motion from its state in the header or in a record
/// (under gravity when it is awake) must stay finite until the record that replaces it, or
/// until the end time after the last one.
pub struct TraceReader {
    input: BufReader<File>,
    header: TraceHeader,
    version: u32,
    walls: usize,
    record_size: usize,
    count: u64,
    read: u64,
    hash: Fnv1a,
    expected_hash: u64,
    end_time: f64,
    last_time: f64,
    /// Per body, the state a replay holds after the records read so far.
    motions: Vec<Motion>,
    /// The scene's gravity (zeros: none).
    gravity: [f64; 3],
}

/// A body's state as a replay holds it: position, velocity and their time, whether it sleeps
/// (out of gravity's reach), and the record that set it (`None`: the header).
#[derive(Clone, Copy, Debug)]
struct Motion {
    pos: [f64; 3],
    vel: [f64; 3],
    time: f64,
    asleep: bool,
    set_by: Option<u64>,
}

fn read_exact_or(input: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), TraceError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            TraceError::Incomplete(format!("file ends inside the {what}"))
        }
        _ => TraceError::Io(e),
    })
}

const NO_FOOTER: &str = "no footer (the run was interrupted or the file cut)";

/// How many bytes follow a footer that is not at the end of a trace of `size` bytes: the last
/// footer mark of the final 64 KiB that leaves room for the header and a whole footer before
/// it, if there is one. Only for the message: the file is refused either way (a record holding
/// the mark by chance would only make the count wrong).
fn footer_before_the_end(
    file: &mut File,
    size: u64,
    header_len: u64,
    footer_size: u64,
) -> Result<Option<u64>, TraceError> {
    let start = size.saturating_sub(1 << 16).max(header_len);
    file.seek(SeekFrom::Start(start))?;
    let mut end = Vec::new();
    file.take(size - start).read_to_end(&mut end)?;
    Ok((0..end.len().saturating_sub(31))
        .rev()
        .find(|&k| {
            end[k..k + 8] == FOOTER_MAGIC && start + k as u64 + 32 >= header_len + footer_size
        })
        .map(|k| size - (start + k as u64 + 32)))
}

impl TraceReader {
    /// Opens a trace and checks its header and footer.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(TraceError::NotAFile(
                "it is a directory: give the path of a trace file (a .ktrace that `kairos run` \
                 or `kairos demo` wrote)",
            ));
        }
        if !meta.is_file() {
            return Err(TraceError::NotAFile(
                "it is not a regular file (a device, pipe or socket): a trace is read from a \
                 file on disk; save it to a file first",
            ));
        }
        let size = meta.len();
        let mut fixed = [0u8; FIXED_HEADER];
        if size < 8 {
            return Err(TraceError::NotATrace);
        }
        read_exact_or(&mut file, &mut fixed[..8], "header")?;
        if fixed[..8] != MAGIC {
            return Err(TraceError::NotATrace);
        }
        read_exact_or(&mut file, &mut fixed[8..], "header")?;
        let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let version = u32_at(&fixed, 8);
        if !(1..=VERSION).contains(&version) {
            return Err(TraceError::Version(version));
        }
        let expected_record = if version == 3 {
            RECORD_SIZE_V3
        } else {
            RECORD_SIZE
        };
        let footer_size = if version == 1 { 32 } else { FOOTER_SIZE } as u64;
        let dim = u32_at(&fixed, 12);
        let header_len = u64::from_le_bytes(fixed[16..24].try_into().unwrap());
        let record_size = u32_at(&fixed, 24);
        if dim != 2 && dim != 3 {
            return Err(corrupt(format!("dimension {dim}")));
        }
        if record_size as usize != expected_record {
            return Err(corrupt(format!("record size {record_size}")));
        }
        if header_len < FIXED_HEADER as u64 || (version >= 2 && header_len % 8 != 0) {
            return Err(corrupt(format!(
                "the header's length reads {header_len} bytes, which no trace has (the file is \
                 damaged)"
            )));
        }
        if header_len > size {
            // A file cut inside its header has no footer; one that ends with a footer is whole,
            // and its header length is what is damaged.
            let footer_at_end = size >= (FIXED_HEADER + 32) as u64 && {
                file.seek(SeekFrom::End(-32))?;
                let mut mark = [0u8; 8];
                read_exact_or(&mut file, &mut mark, "footer")?;
                mark == FOOTER_MAGIC
            };
            return Err(if footer_at_end {
                corrupt(format!(
                    "the header's length reads {header_len} bytes in a file of {size} that \
                     ends with a footer (the file is damaged, not cut short)"
                ))
            } else {
                TraceError::Incomplete(format!(
                    "header of {header_len} bytes in a file of {size} (the file was cut short)"
                ))
            });
        }
        let mut header_bytes = vec![0u8; header_len as usize];
        header_bytes[..FIXED_HEADER].copy_from_slice(&fixed);
        read_exact_or(&mut file, &mut header_bytes[FIXED_HEADER..], "header")?;
        if size - header_len < footer_size {
            return Err(TraceError::Incomplete(NO_FOOTER.into()));
        }
        file.seek(SeekFrom::End(-(footer_size as i64)))?;
        let mut footer = vec![0u8; footer_size as usize];
        read_exact_or(&mut file, &mut footer, "footer")?;
        let tail = &footer[footer.len() - 32..];
        if tail[..8] != FOOTER_MAGIC {
            return Err(
                match footer_before_the_end(&mut file, size, header_len, footer_size)? {
                    Some(extra) => corrupt(format!(
                        "{extra} bytes after the footer (data appended to a complete trace)"
                    )),
                    None => TraceError::Incomplete(NO_FOOTER.into()),
                },
            );
        }
        if version >= 2 {
            let mut check = Fnv1a::default();
            check.update(&header_bytes);
            check.update(tail);
            if check.value().to_le_bytes() != footer[..8] {
                return Err(corrupt(
                    "header or footer checksum does not match (the file is damaged)",
                ));
            }
        }
        let count = u64::from_le_bytes(tail[8..16].try_into().unwrap());
        let expected_hash = u64::from_le_bytes(tail[16..24].try_into().unwrap());
        let end_time = f64::from_le_bytes(tail[24..32].try_into().unwrap());
        let records_bytes = size - header_len - footer_size;
        let rs = expected_record as u64;
        if records_bytes % rs != 0 || records_bytes / rs != count {
            return Err(corrupt(format!(
                "footer says {count} records but {records_bytes} bytes of records are present"
            )));
        }
        let flags = u32_at(&fixed, 28);
        if flags & !FLAG_SLEEP != 0 || (version == 1 && flags != 0) {
            return Err(corrupt(format!("unknown header flags {flags:#x}")));
        }
        let header = decode_header(&header_bytes[FIXED_HEADER..], dim, version, flags)?;
        if !end_time.is_finite() || end_time < header.start_time {
            return Err(corrupt(format!(
                "end time {end_time} is not a finite time after the start ({})",
                header.start_time
            )));
        }
        // The scene without its bodies is enough to count the walls (and to check it parses).
        let scene = Scene::from_toml_str(&header.scene_toml)
            .map_err(|e| corrupt(format!("embedded scene: {e}")))?;
        let walls = scene.walls.iter().map(|w| w.wall_count(scene.dim)).sum();
        if header.rigid && scene.bodies.len() != header.bodies.len() {
            return Err(corrupt(format!(
                "the embedded scene has {} bodies but the header {}",
                scene.bodies.len(),
                header.bodies.len()
            )));
        }
        if header.rigid && !scene.has_rigid_bodies() {
            return Err(corrupt("a version 3 trace of a scene without rigid bodies"));
        }
        if !header.asleep.is_empty() && !scene.has_gravity() {
            return Err(corrupt(
                "sleep states in a trace of a scene without gravity",
            ));
        }
        let motions = header
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| Motion {
                pos: b.pos,
                vel: b.vel,
                time: b.time,
                asleep: header.asleep.get(i).copied().unwrap_or(false),
                set_by: None,
            })
            .collect();
        file.seek(SeekFrom::Start(header_len))?;
        Ok(Self {
            input: BufReader::with_capacity(1 << 20, file),
            last_time: header.start_time,
            header,
            version,
            walls,
            record_size: expected_record,
            count,
            read: 0,
            hash: Fnv1a::default(),
            expected_hash,
            end_time,
            motions,
            gravity: scene.gravity,
        })
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }
    /// The format version of the file (1, 2, or 3 for rigid bodies).
    pub fn version(&self) -> u32 {
        self.version
    }
    /// Number of records.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True when the trace holds no event.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Absolute time of the trace's start (0, or the checkpoint time of a resumed run).
    pub fn start_time(&self) -> f64 {
        self.header.start_time
    }
    /// The simulated end time.
    pub fn end_time(&self) -> f64 {
        self.end_time
    }
    /// The record hash stored in the footer.
    pub fn hash(&self) -> u64 {
        self.expected_hash
    }

    /// The next record; `Ok(None)` after the last one, once the hash has been verified.
    pub fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        if self.read == self.count {
            if self.hash.value() != self.expected_hash {
                return Err(corrupt("record hash does not match the footer"));
            }
            for i in 0..self.motions.len() {
                if !self.stays_finite(i, self.end_time) {
                    return Err(corrupt(format!(
                        "end time {} (the footer's): {}",
                        Num(self.end_time),
                        self.beyond(i, self.end_time)
                    )));
                }
            }
            return Ok(None);
        }
        let mut buf = [0u8; RECORD_SIZE_V3];
        let buf = &mut buf[..self.record_size];
        read_exact_or(&mut self.input, buf, "records")?;
        self.hash.update(buf);
        let index = self.read;
        self.read += 1;
        let r = if self.record_size == RECORD_SIZE_V3 {
            Record::from_bytes_v3((&*buf).try_into().unwrap())
        } else {
            Record::from_bytes((&*buf).try_into().unwrap())
        }
        .ok_or_else(|| corrupt(format!("record {index} has an unknown event kind")))?;
        self.check(index, &r)?;
        self.follow(index, &r)?;
        self.last_time = r.time;
        Ok(Some(r))
    }

    /// Whether body `i`'s motion from its last state stays finite until `t`.
    fn stays_finite(&self, i: usize, t: f64) -> bool {
        let m = &self.motions[i];
        let falls = self.gravity != [0.0; 3] && !m.asleep;
        super::motion_stays_finite(&m.pos, &m.vel, &self.gravity, falls, t - m.time)
    }

    /// Why body `i`'s motion from its last state does not stay finite until `t`.
    fn beyond(&self, i: usize, t: f64) -> String {
        let m = &self.motions[i];
        let from = match m.set_by {
            Some(k) => format!("record {k}"),
            None => "the header".into(),
        };
        let falls = self.gravity != [0.0; 3] && !m.asleep;
        format!(
            "body {i}, from its state in {from} (time {}, position {}, velocity {}{}), would \
             reach a non-finite position or velocity by time {} (the file is damaged)",
            Num(m.time),
            nums(&m.pos),
            nums(&m.vel),
            if falls { ", under gravity" } else { "" },
            Num(t)
        )
    }

    /// Checks that the states record `index` replaces stayed finite until its time, and keeps
    /// its own (checked by [`TraceReader::check`]).
    fn follow(&mut self, index: u64, r: &Record) -> Result<(), TraceError> {
        let pair = r.kind == EventKind::BodyBody;
        let bodies = [
            (r.a, r.pos_a, r.vel_a, r.sleep & Record::A_ASLEEP != 0),
            (r.b, r.pos_b, r.vel_b, r.sleep & Record::B_ASLEEP != 0),
        ];
        let bodies = &bodies[..if pair { 2 } else { 1 }];
        for &(i, ..) in bodies {
            if !self.stays_finite(i as usize, r.time) {
                return Err(corrupt(format!(
                    "record {index}: {}",
                    self.beyond(i as usize, r.time)
                )));
            }
        }
        for &(i, pos, vel, asleep) in bodies {
            self.motions[i as usize] = Motion {
                pos,
                vel,
                time: r.time,
                asleep,
                set_by: Some(index),
            };
        }
        Ok(())
    }

    /// The checks of one record against the header.
    fn check(&self, index: u64, r: &Record) -> Result<(), TraceError> {
        let bad = |what: String| Err(corrupt(format!("record {index}: {what}")));
        if !r.time.is_finite() {
            return bad("non-finite time".into());
        }
        if r.time < self.header.start_time {
            return bad(format!(
                "time {} before the trace's start {}",
                r.time, self.header.start_time
            ));
        }
        if r.time < self.last_time {
            return bad(format!(
                "time {} before the previous record's {} (a trace's times never go back)",
                Num(r.time),
                Num(self.last_time)
            ));
        }
        if r.time > self.end_time {
            return bad(format!(
                "time {} after the trace's end {} (the footer's)",
                Num(r.time),
                Num(self.end_time)
            ));
        }
        if r.sleep & !(Record::A_ASLEEP | Record::B_ASLEEP) != 0
            || (r.sleep & Record::B_ASLEEP != 0 && r.kind != EventKind::BodyBody)
        {
            return bad(format!("unknown sleep flags {:#x}", r.sleep));
        }
        let n = self.header.bodies.len();
        if r.a as usize >= n {
            return bad(format!("body {} of {n}", r.a));
        }
        match r.kind {
            EventKind::BodyBody if r.b as usize >= n || r.b == r.a => bad(format!(
                "ball-ball event of bodies {} and {} of {n}",
                r.a, r.b
            )),
            EventKind::BodyWall if r.b as usize >= self.walls => {
                bad(format!("wall {} of {}", r.b, self.walls))
            }
            EventKind::BoxCrossing => bad("a box crossing (never recorded)".into()),
            _ => {
                let finite = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
                if ![r.pos_a, r.vel_a, r.pos_b, r.vel_b].iter().all(finite) {
                    return bad("non-finite state".into());
                }
                let dim = self.header.dim;
                let spin_ok = BodyState::spin_ok(&r.rot_a, &r.omega_a, dim)
                    && (r.kind != EventKind::BodyBody
                        || BodyState::spin_ok(&r.rot_b, &r.omega_b, dim));
                if self.header.rigid && !spin_ok {
                    return bad("non-finite or non-unit rotation or angular velocity".into());
                }
                if dim == 2 {
                    let pair = r.kind == EventKind::BodyBody;
                    let flat = flat_2d(&r.pos_a, &r.vel_a, &r.rot_a, &r.omega_a)
                        && (!pair || flat_2d(&r.pos_b, &r.vel_b, &r.rot_b, &r.omega_b));
                    if !flat {
                        return bad(
                            "a 2D trace's state with a z component (or a 3D rotation)".into()
                        );
                    }
                }
                Ok(())
            }
        }
    }

    /// Reads every remaining record (verifying the hash).
    pub fn read_all(mut self) -> Result<(TraceHeader, Vec<Record>), TraceError> {
        let mut v = Vec::with_capacity(self.count.min(1 << 24) as usize);
        while let Some(r) = self.next_record()? {
            v.push(r);
        }
        Ok((self.header, v))
    }

    /// Reads every remaining record, checking each and the hash, without keeping them.
    pub fn validate(mut self) -> Result<(), TraceError> {
        while self.next_record()?.is_some() {}
        Ok(())
    }
}

/// A vector for a message, `[x, y, z]` with [`Num`]'s numbers.
fn nums(v: &[f64; 3]) -> String {
    format!("[{}, {}, {}]", Num(v[0]), Num(v[1]), Num(v[2]))
}

/// Whether a 2D state is in the plane: zero z components of position and velocity, and a
/// rotation `[angle, 0, 0, 0]` with angular velocity `[ω, 0, 0]` (zeros in a trace of balls).
fn flat_2d(pos: &[f64; 3], vel: &[f64; 3], rot: &[f64; 4], omega: &[f64; 3]) -> bool {
    pos[2] == 0.0 && vel[2] == 0.0 && rot[1..] == [0.0; 3] && omega[1..] == [0.0; 2]
}

/// The variable part of a header (after the fixed 32 bytes), whose flags are `flags`.
fn decode_header(
    rest: &[u8],
    dim: u32,
    version: u32,
    flags: u32,
) -> Result<TraceHeader, TraceError> {
    let mut strings = Vec::new();
    let mut o = 0usize;
    for what in ["broad-phase name", "scene"] {
        let len = rest
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
            .ok_or_else(|| corrupt(format!("header too short for the {what}")))?;
        let bytes = rest
            .get(o + 4..o + 4 + len)
            .ok_or_else(|| corrupt(format!("header too short for the {what}")))?;
        let s = String::from_utf8(bytes.to_vec())
            .map_err(|_| corrupt(format!("the {what} is not UTF-8")))?;
        strings.push(s);
        o += 4 + len;
    }
    let scene_toml = strings.pop().unwrap();
    let broad_phase = strings.pop().unwrap();
    if version == 1 {
        // The bodies are in the scene, all at time 0.
        let scene = Scene::from_toml_str(&scene_toml)
            .map_err(|e| corrupt(format!("embedded scene: {e}")))?;
        if scene.dim != dim as usize {
            return Err(corrupt(
                "the embedded scene's dimension differs from the header's",
            ));
        }
        return Ok(TraceHeader::for_scene(&scene, broad_phase));
    }
    // Padding to 8 after the strings (counted from the file's start: 32 + o).
    let o = (FIXED_HEADER + o).next_multiple_of(8) - FIXED_HEADER;
    let f = |at: usize| {
        rest.get(at..at + 8)
            .map(|b| b.try_into().unwrap())
            .ok_or_else(|| corrupt("header too short for the body states"))
    };
    let start_time = f64::from_le_bytes(f(o)?);
    let n = u64::from_le_bytes(f(o + 8)?);
    let rigid = version == 3;
    let size = if rigid {
        BODY_STATE_SIZE_V3
    } else {
        BODY_STATE_SIZE
    };
    let states = &rest[o + 16..];
    // The sleep states after the body states: one byte per body, padded to 8.
    let sleep_len = if flags & FLAG_SLEEP != 0 {
        n.checked_next_multiple_of(8)
    } else {
        Some(0)
    };
    let expected = n
        .checked_mul(size as u64)
        .zip(sleep_len)
        .and_then(|(a, b)| a.checked_add(b));
    if expected != Some(states.len() as u64) {
        return Err(corrupt(format!(
            "header holds {} bytes of body states for {n} bodies",
            states.len()
        )));
    }
    let (states, sleep) = states.split_at(n as usize * size);
    let asleep = if flags & FLAG_SLEEP != 0 {
        let (flags, padding) = sleep.split_at(n as usize);
        if flags.iter().any(|&x| x > 1) || padding.iter().any(|&x| x != 0) {
            return Err(corrupt("invalid sleep states in the header"));
        }
        flags.iter().map(|&x| x == 1).collect()
    } else {
        Vec::new()
    };
    if !start_time.is_finite() || start_time < 0.0 {
        return Err(corrupt(format!("start time {start_time}")));
    }
    let bodies: Vec<BodyState> = states.chunks_exact(size).map(BodyState::decode).collect();
    for (i, b) in bodies.iter().enumerate() {
        let ok = b.radius > 0.0
            && b.mass > 0.0
            && [b.radius, b.mass, b.time]
                .iter()
                .chain(&b.pos)
                .chain(&b.vel)
                .all(|x| x.is_finite())
            && b.time <= start_time
            && (!rigid || BodyState::spin_ok(&b.rotation, &b.angular_velocity, dim));
        if !ok {
            return Err(corrupt(format!("body {i}: invalid state in the header")));
        }
        if dim == 2 && !flat_2d(&b.pos, &b.vel, &b.rotation, &b.angular_velocity) {
            return Err(corrupt(format!(
                "body {i}: a state with a z component (or a 3D rotation) in the header of a 2D \
                 trace"
            )));
        }
    }
    Ok(TraceHeader {
        dim,
        broad_phase,
        scene_toml,
        start_time,
        bodies,
        rigid,
        asleep,
    })
}

/// An error unless `t` lies within the trace's span `[start, end]`.
pub fn check_time(t: f64, start: f64, end: f64) -> Result<(), TraceError> {
    if t >= start && t <= end {
        return Ok(());
    }
    let why = if t < start {
        ": before its start (a resumed run's trace holds only the times after its checkpoint)"
    } else {
        ""
    };
    Err(corrupt(format!(
        "time {} is outside the time range of the trace ([{}, {}]){why}",
        Num(t),
        Num(start),
        Num(end)
    )))
}
